package dev.idem.core;

import dev.idem.IdempotencyStoreException;
import dev.idem.core.internal.call.EvictionTally;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyScopes;
import dev.idem.store.KeyWatch;
import dev.idem.store.KeyWatchers;
import dev.idem.store.RecordState;
import dev.idem.store.TtlJitter;
import jakarta.annotation.Nonnull;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The embedded default store ({@code idem.store=memory}): records in this JVM's memory, in a concurrent hash map,
 * bounded by a number of records and by an estimate of their bytes. Right for one process; processes that share
 * work, or a service with more live keys than the bound, need a shared store.
 *
 * <h2>Atomicity</h2>
 * A record is one entry from its claim to its end: the claim creates it, completion or failure finishes that same
 * entry. Every change of an entry (finishing, renewing, replacing or removing it) is made under the entry's own
 * lock and only while the entry is still the key's mapping, so a claim decides and answers in one step and every
 * write after a claim is fenced by its token. Fencing tokens come from one counter for the whole store, so they keep
 * increasing across release, expiry and eviction of a key; a claim draws its token only once nothing else can claim
 * the key before its write (inside the map's insert of an absent key, or under the lock of the entry a takeover
 * replaces), so the tokens of one key increase in the order the key is held. Outcomes are decided from the records'
 * timestamps (kept to the millisecond) at read time; the sweep described below only frees the memory of records
 * that stopped counting.
 *
 * <h2>Expiry and the bound</h2>
 * A finished record joins the queue of its ttl, in order of completion, so each queue is in the order in which its
 * records may be swept: at completion + ttl + the largest jitter, not at the jittered expiry (up to a tenth of the
 * ttl later than the record stops counting), so that the order is that of completion rather than the random order of
 * the jitter. Writers sweep the records whose time has come from the heads of the queues. An in-progress record
 * whose lease passed more than a grace period ago (an abandoned claim: a takeover within the grace still sees what it
 * replaces) is swept by a scan of the store that runs at most once per grace period.
 *
 * <p>The store holds at most {@link #maximumSize()} records and, by its estimate, {@link #maximumBytes()} bytes of
 * them (the estimate counts the key, the payload hash, the stored result and a fixed overhead per record measured
 * on a 64-bit JVM with compressed references; see the README). When a write takes the store past either bound,
 * the writer evicts finished records until the store is one percent below that bound, so that evictions come in
 * batches rather than one per write. It evicts in sweep order, completion plus ttl earliest first, taking from the
 * queue whose head comes first: for records of one ttl that is oldest first, so a duplicate is caught as long as its
 * record is among the newest {@code maximumSize}, a horizon an operator can compute from the rate of new keys. (A
 * cache's frequency-based size policy would keep frequently used entries instead; under a flood of new keys it
 * evicts many of the newest records while keeping old ones, the wrong trade for retries, which come soon after the
 * first call.) The order is exact between records of up to 64 distinct ttls; records of further
 * ttls share the queue of the nearest ttl, and are ordered by completion within it.
 *
 * <p>An {@link RecordState#IN_PROGRESS IN_PROGRESS} record is never evicted by the bound: its lease may be renewed
 * at any moment, and evicting it would let a duplicate run beside the execution. An abandoned claim leaves by the
 * sweep a grace period after its lease passed. In-progress records therefore count towards the bound but are
 * never chosen; a store full of running executions stays over its bound until they finish.
 *
 * <h2>Watches</h2>
 * {@link #watch} is offered: a completion, failure, release or deletion through this store wakes the watches of
 * its key, so callers of engines sharing the store (or of methods that do not coalesce) are woken rather than poll.
 *
 * <h2>Eviction events</h2>
 * A record evicted while it still counted (finished, not expired, and within the window it was claimed with) is
 * reported to the {@linkplain #addEvictionListener eviction listeners} as an
 * {@link IdempotencyEventType#EVICTED EVICTED} event, because a duplicate of its key may now run again. The engine
 * registers itself on every in-memory store it uses, so its listeners get these events and it logs a rate-limited
 * warning. A record evicted after its window passed (it only served late-duplicate reports) or after it expired
 * is not reported.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {
    /** The default {@link #maximumSize()}: {@value} records. */
    public static final long DEFAULT_MAXIMUM_SIZE = 100_000;
    /**
     * The default {@link #maximumBytes()} per record of {@link #maximumSize()}: {@value} bytes, about twice a
     * record with a 100-byte result, so that the byte bound binds only when results average more than about 650
     * bytes.
     */
    public static final long DEFAULT_BYTES_PER_RECORD = 1_024;
    /**
     * The heap of one record beyond the characters of its key and payload hash and the bytes of its result: the
     * store's entry, the hash table's node and slot, the two strings and the headers of their arrays and of the
     * result. Measured by {@code benchmarks/MemoryPerRecord} on JDK 17 with compressed references: 469 bytes for a
     * 58-character key, a 64-character hash and a 100-byte result, 1,369 with a 1,000-byte result (see the README).
     * An estimate: keys with characters beyond Latin-1 take more.
     */
    static final int RECORD_OVERHEAD_BYTES = 248;

    private static final System.Logger LOG = System.getLogger(InMemoryIdempotencyStore.class.getName());
    private static final long IN_PROGRESS_GRACE_MILLIS = Duration.ofMinutes(10).toMillis();
    /** Distinct ttls that get a sweep queue of their own; see the class comment. */
    private static final int MAX_QUEUES = 64;
    /**
     * The latest sweep time a record gets: {@link Long#MAX_VALUE} marks an empty queue's head, and a record of a ttl
     * near that (kept for ever) must still be found at a queue's head to be evicted by the bound.
     */
    private static final long LAST_SWEEP = Long.MAX_VALUE - 1;

    /**
     * One record, from its claim to its end. The claim's fields are final; the lease changes by renewal, and the
     * outcome is written once, under the entry's lock, before {@link #state} publishes it. {@link #removed} and every
     * change of the key's mapping away from this entry happen under the same lock, so an entry is the key's mapping
     * exactly while it is not removed.
     */
    private static final class Entry {
        final String key;
        final String payloadHash;
        final String owner;
        final long token;
        final long startedAt;
        final long supersedeAt; // startedAt + window; Long.MAX_VALUE without a window
        volatile long leaseUntil;
        volatile RecordState state = RecordState.IN_PROGRESS;
        byte[] result; // the outcome's fields: written before state, read after it
        long completedAt;
        long expiresAt;
        long sweepAt;
        boolean removed; // guarded by this
        Entry next; // the next in its sweep queue, guarded by the queue

        Entry(String key, String payloadHash, String owner, long token, long startedAt, long leaseUntil,
              long supersedeAt) {
            this.key = key;
            this.payloadHash = payloadHash;
            this.owner = owner;
            this.token = token;
            this.startedAt = startedAt;
            this.leaseUntil = leaseUntil;
            this.supersedeAt = supersedeAt;
        }

        boolean isExpiredAt(long now) {
            return state != RecordState.IN_PROGRESS && now >= expiresAt;
        }

        /** {@link IdempotencyRecord#isClaimableAt}, on this entry's millisecond stamps. */
        boolean isClaimableAt(long now, long windowMillis) {
            RecordState s = state;
            if (s == RecordState.IN_PROGRESS) {
                return now >= leaseUntil;
            }
            return now >= expiresAt || windowMillis > 0 && now >= plus(startedAt, windowMillis);
        }

        /** Whether this is the claim {@code token}, still in progress: the fence every write after a claim passes. */
        boolean isCurrentClaim(long fencingToken) {
            return token == fencingToken && state == RecordState.IN_PROGRESS;
        }

        /** The record as the SPI shows it, built only for a reader: the hot paths never need it. */
        IdempotencyRecord record() {
            RecordState s = state;
            Instant started = Instant.ofEpochMilli(startedAt);
            Instant lease = Instant.ofEpochMilli(leaseUntil);
            return s == RecordState.IN_PROGRESS
                    ? IdempotencyRecord.inProgress(key, payloadHash, owner, token, started, lease)
                    : new IdempotencyRecord(key, s, payloadHash, owner, token, started, lease,
                    Instant.ofEpochMilli(completedAt), Instant.ofEpochMilli(expiresAt), result);
        }

        /**
         * The estimated heap of this record (see {@link #RECORD_OVERHEAD_BYTES}). Called holding the entry's lock
         * or on an entry no write can finish any more (new, or removed), so {@link #result} is null exactly while
         * the record is in progress.
         */
        long estimatedBytes() {
            return estimate(key, payloadHash, result);
        }
    }

    /**
     * The finished records of one ttl, in order of completion, which for one ttl is the order of their sweep times.
     * A record removed by other means (deleted, superseded) stays linked until it reaches the head, or until the
     * queues are compacted; it is skipped there.
     */
    private static final class SweepQueue {
        final long ttlMillis;
        private Entry head; // guarded by this
        private Entry tail; // guarded by this
        /** The sweep time of the head, Long.MAX_VALUE when empty: read by every writer without the lock. */
        volatile long headSweepAt = Long.MAX_VALUE;

        SweepQueue(long ttlMillis) {
            this.ttlMillis = ttlMillis;
        }

        synchronized void append(Entry e) {
            if (tail == null) {
                head = e;
                headSweepAt = e.sweepAt;
            } else {
                tail.next = e;
            }
            tail = e;
        }

        /** Takes the head; null when empty. */
        synchronized Entry poll() {
            Entry e = head;
            if (e != null) {
                head = e.next;
                e.next = null;
                if (head == null) {
                    tail = null;
                }
                headSweepAt = head == null ? Long.MAX_VALUE : head.sweepAt;
            }
            return e;
        }

        /** How many records are linked, removed ones not yet unlinked included. */
        synchronized long linked() {
            long n = 0;
            for (Entry e = head; e != null; e = e.next) {
                n++;
            }
            return n;
        }

        /** Unlinks every removed record; returns how many. */
        synchronized int compact() {
            int unlinked = 0;
            Entry previous = null;
            for (Entry e = head; e != null; ) {
                Entry following = e.next;
                if (isRemoved(e)) {
                    if (previous == null) {
                        head = following;
                    } else {
                        previous.next = following;
                    }
                    if (tail == e) {
                        tail = previous;
                    }
                    e.next = null;
                    unlinked++;
                } else {
                    previous = e;
                }
                e = following;
            }
            headSweepAt = head == null ? Long.MAX_VALUE : head.sweepAt;
            return unlinked;
        }

        private static boolean isRemoved(Entry e) {
            synchronized (e) {
                return e.removed;
            }
        }
    }

    private final Clock clock;
    private final long maximumSize;
    private final long maximumBytes;
    private final ConcurrentHashMap<String, Entry> records = new ConcurrentHashMap<>();
    /** The sweep queues, one per ttl seen (up to {@link #MAX_QUEUES}); replaced whole when one is added. */
    private volatile SweepQueue[] queues = new SweepQueue[0];
    private final AtomicLong tokens = new AtomicLong();
    /** Estimated bytes of the records held: added when a record is stored or finished, subtracted when removed. */
    private final LongAdder bytes = new LongAdder();
    /** Finished records removed from the map but still linked in a sweep queue; compacted away past a bound. */
    private final LongAdder unlinkedRemoved = new LongAdder();
    /** When the next scan for abandoned claims is due (the store's millis). */
    private volatile long nextAbandonedScan;
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final CopyOnWriteArrayList<IdempotencyListener> evictionListeners = new CopyOnWriteArrayList<>();
    private final KeyWatchers watchers = new KeyWatchers();
    private volatile boolean closed;

    /**
     * A store stamping records with {@code clock}, holding at most {@code maximumSize} records and, by its estimate,
     * {@code maximumBytes} bytes of them.
     *
     * @param clock        the clock records are stamped with and expire by
     * @param maximumSize  the most records held, at least 1
     * @param maximumBytes the most bytes held by the store's estimate, at least 1
     * @throws IllegalArgumentException naming a bound below 1
     */
    public InMemoryIdempotencyStore(@Nonnull Clock clock, long maximumSize, long maximumBytes) {
        if (maximumSize < 1) {
            throw new IllegalArgumentException("maximumSize must be at least 1: " + maximumSize);
        }
        if (maximumBytes < 1) {
            throw new IllegalArgumentException("maximumBytes must be at least 1: " + maximumBytes);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maximumSize = maximumSize;
        this.maximumBytes = maximumBytes;
        this.nextAbandonedScan = plus(clock.millis(), IN_PROGRESS_GRACE_MILLIS);
    }

    /**
     * A store stamping records with {@code clock}, with the default bounds: {@value #DEFAULT_MAXIMUM_SIZE} records
     * and {@value #DEFAULT_BYTES_PER_RECORD} bytes per record of them.
     *
     * @param clock the clock records are stamped with and expire by
     */
    public InMemoryIdempotencyStore(@Nonnull Clock clock) {
        this(clock, DEFAULT_MAXIMUM_SIZE, DEFAULT_MAXIMUM_SIZE * DEFAULT_BYTES_PER_RECORD);
    }

    /** A store on the system clock, with the default bounds. */
    public InMemoryIdempotencyStore() {
        this(Clock.systemUTC());
    }

    /** {@return the most records this store holds} */
    public long maximumSize() {
        return maximumSize;
    }

    /** {@return the most bytes, by the store's estimate, this store holds} */
    public long maximumBytes() {
        return maximumBytes;
    }

    /** {@return about how many records the store holds now, expired ones not yet swept included} */
    public long estimatedSize() {
        return records.mappingCount();
    }

    /** {@return the store's estimate of the heap its records take now} */
    public long estimatedBytes() {
        return bytes.sum();
    }

    /**
     * Registers {@code listener} for {@link IdempotencyEventType#EVICTED EVICTED} events: records the bound forced
     * out while they still counted. The event's {@code operation} is the record's scope as its key carries it (the
     * store does not know which method wrote it), its detail gives the record's state and age. Events are delivered
     * on the writing thread, after the eviction; a listener that throws is logged and does not stop the others.
     * Registering a listener twice registers it once.
     *
     * @param listener the listener
     */
    public void addEvictionListener(@Nonnull IdempotencyListener listener) {
        evictionListeners.addIfAbsent(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Unregisters {@code listener}; it receives no eviction event after this returns.
     *
     * @param listener a listener given to {@link #addEvictionListener}
     */
    public void removeEvictionListener(@Nonnull IdempotencyListener listener) {
        evictionListeners.remove(listener);
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ensureOpen();
        long now = clock.millis();
        String key = request.key();
        long leaseMillis = ceilMillis(request.lease());
        long windowMillis = ceilMillis(request.window());
        // The commonest claim by far is of a key the store does not hold (an HTTP Idempotency-Key is new on nearly
        // every request): one computeIfAbsent decides it. The token is drawn inside it, while the map holds the key's
        // slot, so no other claim of the key can come between the draw and the insert: a token drawn before would
        // be older than one a claim that released or deleted the key meanwhile was given.
        Fresh fresh = new Fresh(request, now, plus(now, leaseMillis), supersedeAt(now, windowMillis));
        long freshBytes = estimate(key, request.payloadHash(), null);
        bytes.add(freshBytes); // counted before it can be seen, so a removal never subtracts it first
        while (true) {
            Entry existing = records.computeIfAbsent(key, fresh);
            if (existing == fresh.made) {
                afterWrite(now);
                return new ClaimOutcome.Acquired(existing.token, null);
            }
            ClaimOutcome outcome;
            synchronized (existing) {
                if (existing.removed) {
                    continue; // removed meanwhile: the key may be absent now
                }
                if (!existing.isClaimableAt(now, windowMillis)) { // an expired record is claimable
                    bytes.add(-freshBytes);
                    return new ClaimOutcome.Existing(existing.record(), Instant.ofEpochMilli(now));
                }
                boolean expired = existing.isExpiredAt(now);
                IdempotencyRecord live = expired ? null : existing.record();
                long startedAt = live != null && live.state() == RecordState.IN_PROGRESS
                        ? existing.startedAt : now; // a takeover continues the execution's window
                Entry claim = new Entry(key, request.payloadHash(), request.owner(), tokens.incrementAndGet(),
                        startedAt, plus(now, leaseMillis), supersedeAt(startedAt, windowMillis));
                // Succeeds: the entry is mapped while it is not removed. The claim's bytes are those counted for
                // the fresh entry it stands in for (the same key and hash, no result).
                records.replace(key, existing, claim);
                detach(existing);
                outcome = new ClaimOutcome.Acquired(claim.token, live, live == null ? null : Instant.ofEpochMilli(now));
            }
            afterWrite(now);
            return outcome;
        }
    }

    /**
     * The entry a claim of an absent key makes, with a token drawn as the map inserts it ({@link #made}: the entry
     * made, null while the key was held).
     */
    private final class Fresh implements Function<String, Entry> {
        private final ClaimRequest request;
        private final long now;
        private final long leaseUntil;
        private final long supersedeAt;
        Entry made;

        Fresh(ClaimRequest request, long now, long leaseUntil, long supersedeAt) {
            this.request = request;
            this.now = now;
            this.leaseUntil = leaseUntil;
            this.supersedeAt = supersedeAt;
        }

        @Override
        public Entry apply(String key) {
            made = new Entry(key, request.payloadHash(), request.owner(), tokens.incrementAndGet(), now, leaseUntil,
                    supersedeAt);
            return made;
        }
    }

    private static long supersedeAt(long startedAt, long windowMillis) {
        return windowMillis == 0 ? Long.MAX_VALUE : plus(startedAt, windowMillis);
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        return finish(key, fencingToken, RecordState.COMPLETED, result, ttl);
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        return finish(key, fencingToken, RecordState.FAILED, failure, failureTtl);
    }

    private boolean finish(String key, long token, RecordState state, byte[] encoded, Duration ttl) {
        ensureOpen();
        byte[] copy = encoded.clone();
        Entry e = records.get(key);
        if (e == null) {
            return false;
        }
        long ttlMillis = ceilMillis(ttl);
        long jitterBound = (long) (ttlMillis * TtlJitter.MAX_FRACTION); // as TtlJitter draws it
        long jitter = jitterBound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(jitterBound + 1);
        long now = clock.millis();
        synchronized (e) {
            if (e.removed || !e.isCurrentClaim(token)) {
                return false;
            }
            e.result = copy;
            e.completedAt = now;
            e.expiresAt = plus(now, plus(ttlMillis, jitter)); // a ttl near Long.MAX_VALUE ms is kept, not wrapped
            e.sweepAt = Math.min(plus(now, plus(ttlMillis, jitterBound)), LAST_SWEEP);
            e.state = state; // publishes the fields above
            bytes.add(copy.length);
        }
        queueFor(ttlMillis).append(e);
        watchers.signal(key);
        afterWrite(now); // the result is what makes a record heavy
        return true;
    }

    @Override
    public boolean release(String key, long fencingToken) {
        ensureOpen();
        Entry e = records.get(key);
        if (e == null) {
            return false;
        }
        synchronized (e) {
            if (e.removed || !e.isCurrentClaim(fencingToken)) {
                return false;
            }
            records.remove(key, e);
            detach(e);
        }
        watchers.signal(key);
        return true;
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        ensureOpen();
        Entry e = records.get(key);
        if (e == null) {
            return false;
        }
        long leaseUntil = plus(clock.millis(), ceilMillis(lease));
        synchronized (e) {
            if (e.removed || !e.isCurrentClaim(fencingToken)) {
                return false;
            }
            e.leaseUntil = leaseUntil;
        }
        return true;
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        ensureOpen();
        Entry e = records.get(key);
        return e == null || e.isExpiredAt(clock.millis()) ? Optional.empty() : Optional.of(e.record());
    }

    @Override
    public void delete(String key) {
        ensureOpen();
        Entry e = records.get(key);
        if (e != null) {
            synchronized (e) {
                if (!e.removed) {
                    records.remove(key, e);
                    detach(e);
                }
            }
        }
        watchers.signal(key);
    }

    @Override
    public Optional<KeyWatch> watch(String key) {
        ensureOpen();
        return Optional.of(watchers.watch(Objects.requireNonNull(key, "key")));
    }

    @Override
    public void close() {
        closed = true; // the records go with the store; removing them one by one would only cost time
    }

    private void ensureOpen() {
        if (closed) {
            throw new IdempotencyStoreException("the in-memory idempotency store is closed");
        }
    }

    /**
     * Marks {@code e}, which the caller has just unmapped holding its lock, as removed, and uncounts it. A finished
     * record removed other than through its sweep queue is still linked there: counted, so the queues are compacted
     * before such records add up.
     */
    private void detach(Entry e) {
        e.removed = true;
        bytes.add(-e.estimatedBytes());
        if (e.state != RecordState.IN_PROGRESS) {
            unlinkedRemoved.increment();
        }
    }

    /** The estimated heap of one record (see {@link #RECORD_OVERHEAD_BYTES}); keys and hashes take a byte a char. */
    static long estimatedBytes(IdempotencyRecord r) {
        return estimate(r.key(), r.payloadHash(), r.result());
    }

    private static long estimate(String key, String payloadHash, byte[] result) {
        return RECORD_OVERHEAD_BYTES + key.length() + payloadHash.length() + (result == null ? 0 : result.length);
    }

    /**
     * A duration in whole milliseconds, rounded up so that no lease, window or ttl is cut short; saturated at the
     * ends of a long (a ttl of {@code ChronoUnit.FOREVER} is kept for ever rather than refused with an
     * {@link ArithmeticException}).
     */
    private static long ceilMillis(Duration d) {
        long millis;
        try {
            millis = d.toMillis();
        } catch (ArithmeticException beyondLong) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return d.getNano() % 1_000_000 == 0 ? millis : plus(millis, 1);
    }

    // ---------------------------------------------------------------- sweep queues

    /** The queue of {@code ttlMillis}, made on its first use; past {@link #MAX_QUEUES}, that of the nearest ttl. */
    private SweepQueue queueFor(long ttlMillis) {
        for (SweepQueue q : queues) {
            if (q.ttlMillis == ttlMillis) {
                return q;
            }
        }
        synchronized (this) {
            SweepQueue[] current = queues;
            SweepQueue nearest = null;
            for (SweepQueue q : current) {
                if (q.ttlMillis == ttlMillis) {
                    return q;
                }
                if (nearest == null || Math.abs(q.ttlMillis - ttlMillis) < Math.abs(nearest.ttlMillis - ttlMillis)) {
                    nearest = q;
                }
            }
            if (current.length >= MAX_QUEUES) {
                return nearest;
            }
            SweepQueue added = new SweepQueue(ttlMillis);
            SweepQueue[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = added;
            queues = grown;
            return added;
        }
    }

    /** Test hook: how many records the sweep queues link, removed ones not yet unlinked included. */
    long linkedInSweepQueues() {
        long n = 0;
        for (SweepQueue q : queues) {
            n += q.linked();
        }
        return n;
    }

    /**
     * Test hook: the entry the store keeps for {@code key} now, or null. Its monitor is the lock every change of it
     * takes, so a test holding it stops a claim that found the entry before the claim decides.
     */
    Object entryOf(String key) {
        return records.get(key);
    }

    /** Test hook: how many sweep queues there are (one per ttl seen, at most {@link #MAX_QUEUES}). */
    int sweepQueueCount() {
        return queues.length;
    }

    /** The queue whose head is due first, or null when every queue is empty. */
    private SweepQueue firstDue() {
        SweepQueue first = null;
        for (SweepQueue q : queues) {
            if (q.headSweepAt != Long.MAX_VALUE && (first == null || q.headSweepAt < first.headSweepAt)) {
                first = q;
            }
        }
        return first;
    }

    // ---------------------------------------------------------------- the bound

    private boolean overBound() {
        return records.mappingCount() > maximumSize || bytes.sum() > maximumBytes;
    }

    /** Whether more removed records are still linked in the sweep queues than the queues should carry. */
    private boolean compactionDue() {
        return unlinkedRemoved.sum() > Math.max(1_024, maximumSize / 2);
    }

    /** Whether a write has housekeeping to do: a record due for its sweep, a scan due, or a bound passed. */
    private boolean housekeepingDue(long now) {
        if (now >= nextAbandonedScan || compactionDue() || overBound()) {
            return true;
        }
        for (SweepQueue q : queues) {
            if (now >= q.headSweepAt) {
                return true;
            }
        }
        return false;
    }

    /**
     * After a write: sweeps the records whose time has come and abandoned claims when a scan is due, then brings the
     * store one percent below whichever bound it passed, evicting finished records nearest their sweep first. One
     * writer does this at a time; the others go on (the bound is passed by at most one record per concurrent writer
     * until that batch is done), so no write waits for another's housekeeping.
     */
    private void afterWrite(long now) {
        if (!housekeepingDue(now) || !sweeping.compareAndSet(false, true)) {
            return;
        }
        List<Entry> reported = null;
        long sizeBefore = 0;
        long bytesBefore = 0;
        try {
            sweepDue(now);
            if (now >= nextAbandonedScan) {
                sweepAbandoned(now);
            }
            if (compactionDue()) {
                for (SweepQueue q : queues) {
                    unlinkedRemoved.add(-q.compact());
                }
            }
            if (overBound()) {
                sizeBefore = records.mappingCount();
                bytesBefore = bytes.sum();
                reported = evict(now, sizeBefore, bytesBefore);
            }
        } finally {
            sweeping.set(false);
        }
        if (reported != null && !reported.isEmpty() && !evictionListeners.isEmpty()) {
            report(reported, now, sizeBefore, bytesBefore);
        }
    }

    /** Removes the records whose sweep time has come, from the heads of the queues. */
    private void sweepDue(long now) {
        for (SweepQueue q : queues) {
            while (now >= q.headSweepAt) {
                Entry e = q.poll();
                if (e != null) {
                    removeFromQueue(e);
                }
            }
        }
    }

    /** Removes claims whose lease passed more than the grace period ago: their owners are gone. */
    private void sweepAbandoned(long now) {
        nextAbandonedScan = plus(now, IN_PROGRESS_GRACE_MILLIS);
        for (Entry e : records.values()) {
            if (e.state == RecordState.IN_PROGRESS && now >= plus(e.leaseUntil, IN_PROGRESS_GRACE_MILLIS)) {
                synchronized (e) {
                    if (!e.removed && e.state == RecordState.IN_PROGRESS
                            && now >= plus(e.leaseUntil, IN_PROGRESS_GRACE_MILLIS)) {
                        records.remove(e.key, e);
                        detach(e);
                    }
                }
            }
        }
    }

    /**
     * Removes {@code e}, just taken from its queue, unless something else removed it already; returns whether this
     * call removed it.
     */
    private boolean removeFromQueue(Entry e) {
        synchronized (e) {
            if (e.removed) {
                unlinkedRemoved.decrement();
                return false;
            }
            records.remove(e.key, e);
            e.removed = true;
            bytes.add(-e.estimatedBytes());
            return true;
        }
    }

    /** Evicts finished records, the one due for its sweep first, until one percent below the bound passed. */
    private List<Entry> evict(long now, long size, long held) {
        long excessRecords = size > maximumSize ? size - (maximumSize - maximumSize / 100) : 0;
        long excessBytes = held > maximumBytes ? held - (maximumBytes - maximumBytes / 100) : 0;
        List<Entry> reported = new ArrayList<>();
        while (excessRecords > 0 || excessBytes > 0) {
            SweepQueue q = firstDue();
            Entry e = q == null ? null : q.poll();
            if (e == null) {
                break; // only records in progress are left: they are never evicted
            }
            if (removeFromQueue(e)) {
                excessRecords--;
                excessBytes -= e.estimatedBytes();
                if (counts(e, now)) {
                    reported.add(e);
                }
            }
        }
        return reported;
    }

    /** Whether an evicted finished record still counted: not expired, and within the window it was claimed with. */
    private static boolean counts(Entry e, long now) {
        return !e.isExpiredAt(now) && now < e.supersedeAt;
    }

    private void report(List<Entry> evicted, long now, long sizeBefore, long bytesBefore) {
        String because = null;
        StringBuilder b = null;
        for (Entry e : evicted) {
            IdempotencyEvent event = null;
            for (IdempotencyListener listener : evictionListeners) {
                try {
                    if (listener instanceof EvictionTally tally && !tally.wantsEvent()) {
                        tally.skipped(); // the engine counting, with no one to read this event
                        continue;
                    }
                    if (event == null) {
                        if (because == null) {
                            // Under a flood every write evicts a record or so, each reported: the part every detail
                            // shares is made once per batch, and each detail in one builder.
                            String bound = sizeBefore > maximumSize
                                    ? "the store held " + sizeBefore + " records, over idem.memory.maximumSize = "
                                    + maximumSize
                                    : "the store held about " + bytesBefore + " bytes in " + sizeBefore
                                    + " records, over idem.memory.maximumBytes = " + maximumBytes;
                            because = " before it would have expired) because " + bound
                                    + "; a duplicate of this key may run again";
                            b = new StringBuilder(64 + because.length());
                        }
                        event = evictedEvent(e, now, because, b);
                    }
                    listener.onEvent(event);
                } catch (RuntimeException ex) {
                    LOG.log(Level.WARNING, "eviction listener " + listener + " threw", ex);
                }
            }
        }
    }

    private static IdempotencyEvent evictedEvent(Entry e, long now, String because, StringBuilder b) {
        b.setLength(0);
        b.append(e.state).append(" record evicted at age ");
        appendSeconds(b, Math.floorDiv(now - e.startedAt, 1_000L));
        b.append(" (");
        appendSeconds(b, Math.floorDiv(e.expiresAt - now, 1_000L));
        String detail = b.append(because).toString();
        return new IdempotencyEvent(IdempotencyEventType.EVICTED, KeyScopes.scope(e.key), e.key, e.token, detail, null);
    }

    private static long plus(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /** Appends {@code seconds} (0s if negative) as {@code 1d2h3m4s}, leaving out the parts that are zero. */
    private static void appendSeconds(StringBuilder b, long seconds) {
        long s = Math.max(0, seconds);
        int start = b.length();
        if (s >= 86_400) {
            b.append(s / 86_400).append('d');
        }
        if (s % 86_400 >= 3_600) {
            b.append(s % 86_400 / 3_600).append('h');
        }
        if (s % 3_600 >= 60) {
            b.append(s % 3_600 / 60).append('m');
        }
        if (s % 60 > 0 || b.length() == start) {
            b.append(s % 60).append('s');
        }
    }
}
