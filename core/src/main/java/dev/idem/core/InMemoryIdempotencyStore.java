package dev.idem.core;

import dev.idem.IdempotencyStoreException;
import dev.idem.core.internal.memory.EvictionReports;
import dev.idem.core.internal.memory.HeldRecords;
import dev.idem.core.internal.memory.Housekeeping;
import dev.idem.core.internal.memory.MemoryRecord;
import dev.idem.core.internal.memory.SweepQueues;
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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static dev.idem.core.internal.memory.SaturatedMillis.ceilMillis;
import static dev.idem.core.internal.memory.SaturatedMillis.plus;

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
 * on a 64-bit JVM with compressed references; see docs/stores.md). Its parts are in {@code dev.idem.core.internal.memory}:
 * the records ({@code MemoryRecord}, {@code HeldRecords}), the sweep queues, the housekeeping after each write, and
 * the eviction reports. When a write takes the store past either bound,
 * the writer evicts finished records until the store is one percent below that bound, so that evictions come in
 * batches rather than one per write. It evicts in sweep order, completion plus ttl earliest first, taking from the
 * queue whose head comes first: for records of one ttl that is oldest first, so a duplicate is caught as long as its
 * record is among the newest {@code maximumSize}, a horizon an operator can compute from the rate of new keys. The
 * order is exact between records of up to 64 distinct ttls; records of further ttls share the queue of the nearest
 * ttl, and are ordered by completion within it.
 *
 * <p>Why not Caffeine, which bounds the engine's local results: its size policy (W-TinyLFU) admits a new entry only
 * when it is used more often than the entry it would evict, so under a flood of new keys after keys that were read
 * a few times it evicts the newest records within moments of their completion while keeping the old ones
 * ({@code InMemoryEvictionOrderTest} shows both, against Caffeine and against this store). For local results that
 * is right: what is replayed again and again stays, and a miss costs a store round trip. For the store it is the
 * wrong trade: a retry comes soon after its first call and is always a key read once, and a miss here runs the
 * method again. Caffeine's variable expiry and zero weights could pin in-progress records and expire finished ones,
 * but not give the eviction order a duplicate needs, so the store keeps its own queues.
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
    /** The heap of one record beyond its key, payload hash and result, as the store estimates it. */
    static final int RECORD_OVERHEAD_BYTES = MemoryRecord.OVERHEAD_BYTES;

    private final Clock clock;
    private final long maximumSize;
    private final long maximumBytes;
    private final HeldRecords held = new HeldRecords();
    /** The map of {@link #held}: every claim and read goes to it. */
    private final ConcurrentHashMap<String, MemoryRecord> records = held.byKey();
    private final SweepQueues queues = new SweepQueues();
    private final AtomicLong tokens = new AtomicLong();
    private final EvictionReports evictionReports = new EvictionReports(KeyScopes::scope);
    private final Housekeeping housekeeping;
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
        this.housekeeping = new Housekeeping(held, queues, evictionReports, maximumSize, maximumBytes, clock.millis());
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
        return held.size();
    }

    /** {@return the store's estimate of the heap its records take now} */
    public long estimatedBytes() {
        return held.bytes();
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
        evictionReports.add(listener);
    }

    /**
     * Unregisters {@code listener}; it receives no eviction event after this returns.
     *
     * @param listener a listener given to {@link #addEvictionListener}
     */
    public void removeEvictionListener(@Nonnull IdempotencyListener listener) {
        evictionReports.remove(listener);
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
        long freshBytes = MemoryRecord.estimate(key, request.payloadHash(), null);
        held.addBytes(freshBytes); // counted before it can be seen, so a removal never subtracts it first
        while (true) {
            MemoryRecord existing = records.computeIfAbsent(key, fresh);
            if (existing == fresh.made) {
                housekeeping.afterWrite(now);
                return new ClaimOutcome.Acquired(existing.token, null);
            }
            ClaimOutcome outcome;
            synchronized (existing) {
                if (existing.removed) {
                    continue; // removed meanwhile: the key may be absent now
                }
                if (!existing.isClaimableAt(now, windowMillis)) { // an expired record is claimable
                    held.addBytes(-freshBytes);
                    return new ClaimOutcome.Existing(existing.record(), Instant.ofEpochMilli(now));
                }
                boolean expired = existing.isExpiredAt(now);
                IdempotencyRecord live = expired ? null : existing.record();
                long startedAt = live != null && live.state() == RecordState.IN_PROGRESS
                        ? existing.startedAt : now; // a takeover continues the execution's window
                MemoryRecord claim = new MemoryRecord(key, request.payloadHash(), request.owner(),
                        tokens.incrementAndGet(), startedAt, plus(now, leaseMillis),
                        supersedeAt(startedAt, windowMillis));
                // Succeeds: the entry is mapped while it is not removed. The claim's bytes are those counted for
                // the fresh entry it stands in for (the same key and hash, no result).
                records.replace(key, existing, claim);
                held.detach(existing);
                outcome = new ClaimOutcome.Acquired(claim.token, live, live == null ? null : Instant.ofEpochMilli(now));
            }
            housekeeping.afterWrite(now);
            return outcome;
        }
    }

    /**
     * The entry a claim of an absent key makes, with a token drawn as the map inserts it ({@link #made}: the entry
     * made, null while the key was held).
     */
    private final class Fresh implements Function<String, MemoryRecord> {
        private final ClaimRequest request;
        private final long now;
        private final long leaseUntil;
        private final long supersedeAt;
        MemoryRecord made;

        Fresh(ClaimRequest request, long now, long leaseUntil, long supersedeAt) {
            this.request = request;
            this.now = now;
            this.leaseUntil = leaseUntil;
            this.supersedeAt = supersedeAt;
        }

        @Override
        public MemoryRecord apply(String key) {
            made = new MemoryRecord(key, request.payloadHash(), request.owner(), tokens.incrementAndGet(), now,
                    leaseUntil, supersedeAt);
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
        MemoryRecord e = records.get(key);
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
            e.sweepAt = Math.min(plus(now, plus(ttlMillis, jitterBound)), SweepQueues.LAST_SWEEP);
            e.state = state; // publishes the fields above
            held.addBytes(copy.length);
        }
        queues.append(ttlMillis, e);
        watchers.signal(key);
        housekeeping.afterWrite(now); // the result is what makes a record heavy
        return true;
    }

    @Override
    public boolean release(String key, long fencingToken) {
        ensureOpen();
        MemoryRecord e = records.get(key);
        if (e == null) {
            return false;
        }
        synchronized (e) {
            if (e.removed || !e.isCurrentClaim(fencingToken)) {
                return false;
            }
            records.remove(key, e);
            held.detach(e);
        }
        watchers.signal(key);
        return true;
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        ensureOpen();
        MemoryRecord e = records.get(key);
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
        MemoryRecord e = records.get(key);
        return e == null || e.isExpiredAt(clock.millis()) ? Optional.empty() : Optional.of(e.record());
    }

    @Override
    public void delete(String key) {
        ensureOpen();
        MemoryRecord e = records.get(key);
        if (e != null) {
            synchronized (e) {
                if (!e.removed) {
                    records.remove(key, e);
                    held.detach(e);
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

    /** The estimated heap of one record (see {@link #RECORD_OVERHEAD_BYTES}); keys and hashes take a byte a char. */
    static long estimatedBytes(IdempotencyRecord r) {
        return MemoryRecord.estimate(r.key(), r.payloadHash(), r.result());
    }

    /** Test hook: how many records the sweep queues link, removed ones not yet unlinked included. */
    long linkedInSweepQueues() {
        return queues.linked();
    }

    /**
     * Test hook: the entry the store keeps for {@code key} now, or null. Its monitor is the lock every change of it
     * takes, so a test holding it stops a claim that found the entry before the claim decides.
     */
    Object entryOf(String key) {
        return records.get(key);
    }

    /** Test hook: how many sweep queues there are (one per ttl seen, at most 64). */
    int sweepQueueCount() {
        return queues.count();
    }
}
