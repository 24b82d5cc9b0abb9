package dev.idem.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * The embedded default store ({@code idem.store=memory}): records in this JVM's memory, on Caffeine with
 * per-record expiry, bounded by a number of records and by an estimate of their bytes. Right for one process;
 * processes that share work, or a service with more live keys than the bound, need a shared store.
 *
 * <h2>Atomicity</h2>
 * Every operation is one atomic {@code compute} on the record's key, so a claim decides and answers in one
 * step. Fencing tokens come from one counter for the whole store, so they keep increasing across release, expiry
 * and eviction of a key. Outcomes are decided from the records' timestamps at read time; Caffeine's expiry only
 * frees the memory of records that stopped counting: a finished record once its ttl and the largest jitter passed,
 * an in-progress record a grace period after its lease (so that a takeover still sees what it replaced).
 *
 * <h2>The bound</h2>
 * The store holds at most {@link #maximumSize()} records and, by its estimate, {@link #maximumBytes()} bytes of
 * them (the estimate counts the key, the payload hash, the stored result and a fixed overhead per record measured
 * on a 64-bit JVM with compressed references; see the README). When a write takes the store past either bound,
 * the writer evicts finished records until the store is one percent below that bound, so that evictions come in
 * batches rather than one per write. It evicts in the order Caffeine would sweep them, completion plus ttl
 * earliest first: for records of one ttl that is oldest first, so a duplicate is caught as long as its record is
 * among the newest {@code maximumSize}, a horizon an operator can compute from the rate of new keys. Caffeine's
 * own size policy would keep frequently used entries instead; under a flood of new keys it evicts many of the
 * newest records while keeping old ones, the wrong trade for retries, which come soon after the first call. The
 * order between records of different ttls is exact to a bucket of Caffeine's timer wheel (about a second for
 * records swept within a minute, a minute within an hour, an hour within a day); within a bucket it is the order
 * in which they were written.
 *
 * <p>An {@link RecordState#IN_PROGRESS IN_PROGRESS} record is never evicted by the bound: its lease may be renewed
 * at any moment, and evicting it would let a duplicate run beside the execution. An abandoned claim leaves by
 * expiry a grace period after its lease passed. In-progress records therefore count towards the bound but are
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
     * The default {@link #maximumBytes()} per record of {@link #maximumSize()}: {@value} bytes, about 1.7 times a
     * record with a 100-byte result, so that the byte bound binds only when results average more than about 500
     * bytes.
     */
    public static final long DEFAULT_BYTES_PER_RECORD = 1_024;
    /**
     * The heap of one record beyond the characters of its key and payload hash and the bytes of its result: the
     * record, its four timestamps, the store's entry, Caffeine's node, the hash table's node and slot, the two
     * strings and the headers of their arrays and of the result. Measured by {@code benchmarks/MemoryPerRecord} on
     * JDK 17 with compressed references: 596 bytes for a 58-character key, a 64-character hash and a 100-byte
     * result, 1,495 with a 1,000-byte result. An estimate: keys with characters beyond Latin-1 take more.
     */
    static final int RECORD_OVERHEAD_BYTES = 376;

    private static final System.Logger LOG = System.getLogger(InMemoryIdempotencyStore.class.getName());
    private static final long IN_PROGRESS_GRACE_MILLIS = Duration.ofMinutes(10).toMillis();
    /**
     * At most this many records in progress are passed over per eviction batch, so that a store full of running
     * executions is not scanned whole at every write.
     */
    private static final int MAX_PASSED_OVER = 4_096;

    /**
     * A record with two times it does not carry: the end of the window its claim was made with, and when Caffeine
     * may sweep it. A finished record is swept at completion + ttl + the largest jitter, not at its jittered expiry:
     * up to a tenth of the ttl later than it stops counting, so that Caffeine's expiry order, which the bound evicts
     * by, is the order of completion for records of one ttl rather than the random order of their jitter (within
     * the minutes of jitter of a one-hour ttl, a busy service completes more records than the bound holds).
     */
    private static final class Entry {
        final IdempotencyRecord record;
        final long supersedeAtMillis; // startedAt + window; Long.MAX_VALUE without a window
        final long sweepAtMillis;

        Entry(IdempotencyRecord record, long supersedeAtMillis, long sweepAtMillis) {
            this.record = record;
            this.supersedeAtMillis = supersedeAtMillis;
            this.sweepAtMillis = sweepAtMillis;
        }

        /** An in-progress claim, swept a grace period after its lease so that a takeover still sees it. */
        static Entry inProgress(IdempotencyRecord claim, long supersedeAtMillis) {
            return new Entry(claim, supersedeAtMillis,
                    plus(claim.leaseUntil().toEpochMilli(), IN_PROGRESS_GRACE_MILLIS));
        }
    }

    private final Clock clock;
    private final long maximumSize;
    private final long maximumBytes;
    private final Cache<String, Entry> records;
    private final Policy.VarExpiration<String, Entry> expiryOrder;
    private final AtomicLong tokens = new AtomicLong();
    /** Estimated bytes of the records held: added when a record is stored, subtracted when Caffeine reports it gone. */
    private final LongAdder bytes = new LongAdder();
    private final AtomicBoolean evicting = new AtomicBoolean();
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
        this.clock = clock;
        this.maximumSize = maximumSize;
        this.maximumBytes = maximumBytes;
        this.records = Caffeine.newBuilder()
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                // Maintenance and removal notifications on the writing thread: the byte estimate is current when a
                // write returns, and expired records are swept by the writers rather than by the common pool.
                .executor(Runnable::run)
                .removalListener((String key, Entry gone, RemovalCause cause) -> {
                    if (gone != null) {
                        bytes.add(-estimatedBytes(gone.record));
                    }
                })
                .expireAfter(new Expiry<String, Entry>() {
                    @Override
                    public long expireAfterCreate(String key, Entry e, long currentTime) {
                        return Math.max(0, TimeUnit.MILLISECONDS.toNanos(e.sweepAtMillis) - currentTime);
                    }

                    @Override
                    public long expireAfterUpdate(String key, Entry e, long currentTime, long current) {
                        return expireAfterCreate(key, e, currentTime);
                    }

                    @Override
                    public long expireAfterRead(String key, Entry e, long currentTime, long current) {
                        return current;
                    }
                })
                .build();
        this.expiryOrder = records.policy().expireVariably().orElseThrow();
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
        return records.estimatedSize();
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
        Instant now = clock.instant();
        // The commonest claim by far is of a key the store does not hold (an HTTP Idempotency-Key is new on nearly
        // every request): one putIfAbsent decides it, without a compute's function and its captures. The token is
        // taken first; if the key turns out to be held it is simply never used (tokens only need to increase).
        long token = tokens.incrementAndGet();
        Entry fresh = Entry.inProgress(IdempotencyRecord.inProgress(request.key(), request.payloadHash(),
                request.owner(), token, now, now.plus(request.lease())), supersedeAt(now, request.window()));
        long freshBytes = estimatedBytes(fresh.record);
        bytes.add(freshBytes); // counted before it can be seen, so the removal listener never subtracts it first
        if (records.asMap().putIfAbsent(request.key(), fresh) == null) {
            enforceBound();
            return new ClaimOutcome.Acquired(token, null);
        }
        bytes.add(-freshBytes);
        ClaimOutcome[] outcome = new ClaimOutcome[1];
        records.asMap().compute(request.key(), (key, existing) -> {
            IdempotencyRecord live = existing == null || existing.record.isExpiredAt(now) ? null : existing.record;
            if (live != null && !live.isClaimableAt(now, request.window())) {
                outcome[0] = new ClaimOutcome.Existing(live);
                return existing;
            }
            long next = tokens.incrementAndGet();
            boolean takeover = live != null && live.state() == RecordState.IN_PROGRESS;
            Instant startedAt = takeover ? live.startedAt() : now;
            outcome[0] = new ClaimOutcome.Acquired(next, live);
            return stored(Entry.inProgress(IdempotencyRecord.inProgress(key, request.payloadHash(), request.owner(),
                    next, startedAt, now.plus(request.lease())), supersedeAt(startedAt, request.window())));
        });
        if (outcome[0] instanceof ClaimOutcome.Acquired) {
            enforceBound();
        }
        return outcome[0];
    }

    private static long supersedeAt(Instant startedAt, Duration window) {
        return window.isZero() ? Long.MAX_VALUE : startedAt.plus(window).toEpochMilli();
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
        long ttlMillis = ttl.toMillis();
        long latestExpiry = plus(ttlMillis, (long) (ttlMillis * TtlJitter.MAX_FRACTION)); // as TtlJitter bounds it
        Instant now = clock.instant();
        Instant expiresAt = TtlJitter.expiresAt(now, ttl);
        long sweepAt = plus(now.toEpochMilli(), latestExpiry);
        ConcurrentMap<String, Entry> map = records.asMap();
        while (true) {
            Entry e = map.get(key);
            if (e == null || !isCurrentClaim(e, token)) {
                return false;
            }
            Entry updated = new Entry(e.record.finished(state, copy, now, expiresAt), e.supersedeAtMillis, sweepAt);
            long updatedBytes = estimatedBytes(updated.record);
            bytes.add(updatedBytes);
            // Replaces only the very entry read: a claim taken over meanwhile is another entry, and is re-read.
            if (map.replace(key, e, updated)) {
                watchers.signal(key);
                enforceBound(); // the result is what makes a record heavy
                return true;
            }
            bytes.add(-updatedBytes);
        }
    }

    @Override
    public boolean release(String key, long fencingToken) {
        ensureOpen();
        ConcurrentMap<String, Entry> map = records.asMap();
        while (true) {
            Entry e = map.get(key);
            if (e == null || !isCurrentClaim(e, fencingToken)) {
                return false;
            }
            if (map.remove(key, e)) {
                watchers.signal(key);
                return true;
            }
        }
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        ensureOpen();
        Instant now = clock.instant();
        ConcurrentMap<String, Entry> map = records.asMap();
        while (true) {
            Entry e = map.get(key);
            if (e == null || !isCurrentClaim(e, fencingToken)) {
                return false;
            }
            Entry renewed = Entry.inProgress(e.record.withLease(now.plus(lease)), e.supersedeAtMillis);
            long renewedBytes = estimatedBytes(renewed.record);
            bytes.add(renewedBytes);
            if (map.replace(key, e, renewed)) {
                return true;
            }
            bytes.add(-renewedBytes);
        }
    }

    /** Whether {@code e} is the claim {@code token}, still in progress: the fence every write after a claim passes. */
    private static boolean isCurrentClaim(Entry e, long token) {
        return e.record.fencingToken() == token && e.record.state() == RecordState.IN_PROGRESS;
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        ensureOpen();
        Entry e = records.getIfPresent(key);
        return e == null || e.record.isExpiredAt(clock.instant()) ? Optional.empty() : Optional.of(e.record);
    }

    @Override
    public void delete(String key) {
        ensureOpen();
        records.invalidate(key);
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

    /** Counts a record about to be stored; the removal listener subtracts it when it is replaced or removed. */
    private Entry stored(Entry entry) {
        bytes.add(estimatedBytes(entry.record));
        return entry;
    }

    /** The estimated heap of one record (see {@link #RECORD_OVERHEAD_BYTES}); keys and hashes take a byte a char. */
    static long estimatedBytes(IdempotencyRecord r) {
        byte[] result = r.result();
        return RECORD_OVERHEAD_BYTES + r.key().length() + r.payloadHash().length()
                + (result == null ? 0 : result.length);
    }

    // ---------------------------------------------------------------- the bound

    private boolean overBound() {
        return records.estimatedSize() > maximumSize || bytes.sum() > maximumBytes;
    }

    /**
     * Brings the store one percent below whichever bound it passed, evicting finished records nearest their expiry
     * first. One writer evicts at a time; the others go on (the bound is passed by at most one record per
     * concurrent writer until that batch is done), so no write waits for another's eviction.
     */
    private void enforceBound() {
        if (!overBound() || !evicting.compareAndSet(false, true)) {
            return;
        }
        List<Entry> reported = new ArrayList<>();
        Instant now;
        long sizeBefore;
        long bytesBefore;
        try {
            now = clock.instant();
            // The snapshot runs Caffeine's maintenance first, so expired records are gone before victims are chosen.
            List<Map.Entry<String, Entry>> victims = expiryOrder.oldest(this::chooseVictims);
            sizeBefore = records.estimatedSize();
            bytesBefore = bytes.sum();
            for (Map.Entry<String, Entry> victim : victims) {
                // Removes only the very entry chosen: a record completed or renewed meanwhile is another entry.
                if (records.asMap().remove(victim.getKey(), victim.getValue()) && counts(victim.getValue(), now)) {
                    reported.add(victim.getValue());
                }
            }
        } finally {
            evicting.set(false);
        }
        if (!reported.isEmpty() && !evictionListeners.isEmpty()) {
            report(reported, now, sizeBefore, bytesBefore);
        }
    }

    private List<Map.Entry<String, Entry>> chooseVictims(Stream<Policy.CacheEntry<String, Entry>> nearestExpiryFirst) {
        long size = records.estimatedSize();
        long held = bytes.sum();
        long excessRecords = size > maximumSize ? size - (maximumSize - maximumSize / 100) : 0;
        long excessBytes = held > maximumBytes ? held - (maximumBytes - maximumBytes / 100) : 0;
        List<Map.Entry<String, Entry>> victims = new ArrayList<>();
        int passedOver = 0;
        Iterator<Policy.CacheEntry<String, Entry>> it = nearestExpiryFirst.iterator();
        while ((excessRecords > 0 || excessBytes > 0) && it.hasNext() && passedOver < MAX_PASSED_OVER) {
            Policy.CacheEntry<String, Entry> candidate = it.next();
            Entry e = candidate.getValue();
            if (e.record.state() == RecordState.IN_PROGRESS) {
                passedOver++;
                continue;
            }
            victims.add(Map.entry(candidate.getKey(), e));
            excessRecords--;
            excessBytes -= estimatedBytes(e.record);
        }
        return victims;
    }

    /** Whether an evicted finished record still counted: not expired, and within the window it was claimed with. */
    private static boolean counts(Entry e, Instant now) {
        return !e.record.isExpiredAt(now) && now.toEpochMilli() < e.supersedeAtMillis;
    }

    private void report(List<Entry> evicted, Instant now, long sizeBefore, long bytesBefore) {
        String bound = sizeBefore > maximumSize
                ? "the store held " + sizeBefore + " records, over idem.memory.maximumSize = " + maximumSize
                : "the store held about " + bytesBefore + " bytes in " + sizeBefore
                + " records, over idem.memory.maximumBytes = " + maximumBytes;
        // Under a flood every write evicts a record or so, each reported: the part every detail shares is made
        // once per batch, and each detail in one builder, without intermediate strings.
        String because = " before it would have expired) because " + bound + "; a duplicate of this key may run again";
        StringBuilder b = new StringBuilder(64 + because.length());
        for (Entry e : evicted) {
            IdempotencyRecord r = e.record;
            b.setLength(0);
            b.append(r.state()).append(" record evicted at age ");
            appendSeconds(b, Duration.between(r.startedAt(), now).getSeconds());
            b.append(" (");
            appendSeconds(b, Duration.between(now, r.expiresAt()).getSeconds());
            String detail = b.append(because).toString();
            IdempotencyEvent event = new IdempotencyEvent(IdempotencyEventType.EVICTED, scopeOf(r.key()), r.key(),
                    r.fencingToken(), detail, null);
            for (IdempotencyListener listener : evictionListeners) {
                try {
                    listener.onEvent(event);
                } catch (RuntimeException ex) {
                    LOG.log(Level.WARNING, "eviction listener " + listener + " threw", ex);
                }
            }
        }
    }

    /** The scope of an engine key {@code idem:{namespace}:{scope}:{hash}}; any other key is its own scope. */
    static String scopeOf(String key) {
        int afterNamespace = key.startsWith("idem:") ? key.indexOf(':', 5) : -1;
        int beforeHash = key.lastIndexOf(':');
        return afterNamespace > 0 && beforeHash > afterNamespace ? key.substring(afterNamespace + 1, beforeHash) : key;
    }

    private static long plus(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /** {@code 1h2m3s}, to the second. */
    static String format(Duration d) {
        StringBuilder b = new StringBuilder();
        appendSeconds(b, d.getSeconds());
        return b.toString();
    }

    /** Appends {@code seconds} (0s if negative) as {@link #format} writes them. */
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
