package dev.idem.store.tck;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.KeyWatchers;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import dev.idem.store.TtlJitter;
import jakarta.annotation.Nullable;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * A correct store kept as plain as possible, for the TCK's own tests: every write reads, decides and writes under
 * one lock that belongs to the backend, so any number of instances over one backend are as atomic as one.
 *
 * <p>Its steps are protected so that each broken store in {@link BrokenStores} changes exactly one of them and the
 * rest stays correct; a step a variant replaces wholesale (a claim with no lock) is reachable through the
 * {@code ...Unlocked} methods.
 */
class ReferenceStore implements IdempotencyStore {

    /**
     * What every instance over one backend shares, as processes share a database: the records, the token counter,
     * the lock, and, for a backend with a time of its own, its clock.
     */
    static final class Backend {
        final ConcurrentMap<String, IdempotencyRecord> records = new ConcurrentHashMap<>();
        final AtomicLong tokens = new AtomicLong();
        final Object lock = new Object();
        /** The watches of every instance, so a write through one signals a watch opened through another. */
        final KeyWatchers watchers = new KeyWatchers();
        @Nullable
        final Clock serverClock;

        /** A backend whose stores read the clock they are given (null), or the server's own clock. */
        Backend(@Nullable Clock serverClock) {
            this.serverClock = serverClock;
        }
    }

    protected final Backend backend;
    protected final Clock injectedClock;
    private volatile boolean closed;

    ReferenceStore(Backend backend, Clock injectedClock) {
        this.backend = backend;
        this.injectedClock = injectedClock;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The steps variants change

    /** The store's time: the server's, kept to the millisecond like a database column, or the injected clock. */
    protected Instant now() {
        return backend.serverClock != null
                ? backend.serverClock.instant().truncatedTo(ChronoUnit.MILLIS)
                : injectedClock.instant();
    }

    /** What makes a read and the write that follows it atomic. */
    protected Object lock() {
        return backend.lock;
    }

    /** Called between a write's read and its write; a racy variant widens the gap here. */
    protected void beforeWrite() {
    }

    /** The key records are filed under. */
    protected String storageKey(String key) {
        return key;
    }

    protected long nextToken(String storageKey) {
        return backend.tokens.incrementAndGet();
    }

    /** The stored record, or null when there is none or it expired. */
    @Nullable
    protected IdempotencyRecord live(String storageKey, Instant now) {
        IdempotencyRecord stored = backend.records.get(storageKey);
        return stored == null || stored.isExpiredAt(now) ? null : stored;
    }

    protected boolean claimable(IdempotencyRecord live, Instant now, Duration window) {
        return live.isClaimableAt(now, window);
    }

    /** The record a winning claim writes over {@code live} (null when the key was absent). */
    protected IdempotencyRecord claimedOver(@Nullable IdempotencyRecord live, ClaimRequest request, long token,
                                            Instant now) {
        boolean takeover = live != null && live.state() == RecordState.IN_PROGRESS;
        Instant startedAt = takeover ? live.startedAt() : now;
        return IdempotencyRecord.inProgress(request.key(), request.payloadHash(), request.owner(), token, startedAt,
                now.plus(request.lease()));
    }

    /** The record a claim in a transaction writes over {@code live}, at its commit: as a plain claim's. */
    protected IdempotencyRecord claimedInTransactionOver(@Nullable IdempotencyRecord live, ClaimRequest request,
                                                         long token, Instant now) {
        return claimedOver(live, request, token, now);
    }

    /** The record a losing claim returns. */
    protected IdempotencyRecord asReportedToALoser(IdempotencyRecord live, Instant now) {
        return live;
    }

    /** The store's time a claim's answer reports ({@link ClaimOutcome#storeTime()}): its now. */
    protected Instant reportedTime(Instant now) {
        return now;
    }

    /** The array kept for a result or failure the caller gave. */
    protected byte[] kept(byte[] given) {
        return given.clone();
    }

    /** When a record finished now and kept for {@code ttl} stops counting. */
    protected Instant expiresAt(Instant now, Duration ttl) {
        return TtlJitter.expiresAt(now, ttl);
    }

    /** The new end of a renewed lease. */
    protected Instant renewedLeaseUntil(IdempotencyRecord current, Instant now, Duration lease) {
        return now.plus(lease);
    }

    protected boolean mayRelease(IdempotencyRecord current) {
        return current.state() == RecordState.IN_PROGRESS;
    }

    protected boolean mayRenew(IdempotencyRecord current) {
        return current.state() == RecordState.IN_PROGRESS;
    }

    /** Where watches are registered and signalled. */
    protected KeyWatchers watchers() {
        return backend.watchers;
    }

    /** Signals the watches of {@code storageKey} after a finishing write ({@code write} names it). */
    protected void signal(String storageKey, String write) {
        watchers().signal(storageKey);
    }

    /** Opens a watch of {@code storageKey}. */
    protected KeyWatch opened(String storageKey) {
        return watchers().watch(storageKey);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The store

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ensureOpen();
        synchronized (lock()) {
            return claimUnlocked(request);
        }
    }

    protected final ClaimOutcome claimUnlocked(ClaimRequest request) {
        String key = storageKey(request.key());
        Instant now = now();
        IdempotencyRecord live = live(key, now);
        if (live != null && !claimable(live, now, request.window())) {
            return new ClaimOutcome.Existing(asReportedToALoser(live, now), reportedTime(now));
        }
        beforeWrite();
        long token = nextToken(key);
        backend.records.put(key, claimedOver(live, request, token, now));
        return new ClaimOutcome.Acquired(token, live, reportedTime(now));
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        ensureOpen();
        synchronized (lock()) {
            return signalled(key, "complete", completeUnlocked(key, fencingToken, result, ttl));
        }
    }

    protected final boolean completeUnlocked(String key, long fencingToken, byte[] result, Duration ttl) {
        return fencedWrite(key, fencingToken, r -> r.state() == RecordState.IN_PROGRESS,
                (r, now) -> r.finished(RecordState.COMPLETED, kept(result), now, expiresAt(now, ttl)));
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        ensureOpen();
        synchronized (lock()) {
            return signalled(key, "fail", fencedWrite(key, fencingToken, r -> r.state() == RecordState.IN_PROGRESS,
                    (r, now) -> r.finished(RecordState.FAILED, kept(failure), now, expiresAt(now, failureTtl))));
        }
    }

    @Override
    public boolean release(String key, long fencingToken) {
        ensureOpen();
        synchronized (lock()) {
            return signalled(key, "release", fencedWrite(key, fencingToken, this::mayRelease, (r, now) -> null));
        }
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        ensureOpen();
        synchronized (lock()) {
            return renewUnlocked(key, fencingToken, lease);
        }
    }

    protected final boolean renewUnlocked(String key, long fencingToken, Duration lease) {
        return fencedWrite(key, fencingToken, this::mayRenew, (r, now) -> {
            // Built by hand rather than with withLease, which refuses a finished record: a planted bug may renew one.
            return new IdempotencyRecord(r.key(), RecordState.IN_PROGRESS, r.payloadHash(), r.owner(), r.fencingToken(),
                    r.startedAt(), renewedLeaseUntil(r, now, lease), null, null, null);
        });
    }

    /** Applies {@code update} (null removes the record) if {@code token} is current and the record {@code allowed}. */
    private boolean fencedWrite(String key, long token, Predicate<IdempotencyRecord> allowed,
                                BiFunction<IdempotencyRecord, Instant, IdempotencyRecord> update) {
        String stored = storageKey(key);
        Instant now = now();
        IdempotencyRecord current = live(stored, now);
        if (current == null || current.fencingToken() != token || !allowed.test(current)) {
            return false;
        }
        beforeWrite();
        IdempotencyRecord next = update.apply(current, now);
        if (next == null) {
            backend.records.remove(stored);
        } else {
            backend.records.put(stored, next);
        }
        return true;
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        ensureOpen();
        return Optional.ofNullable(live(storageKey(key), now()));
    }

    @Override
    public void delete(String key) {
        ensureOpen();
        synchronized (lock()) {
            backend.records.remove(storageKey(key));
            signal(storageKey(key), "delete");
        }
    }

    @Override
    public Optional<KeyWatch> watch(String key) {
        ensureOpen();
        return Optional.of(opened(storageKey(key)));
    }

    /**
     * Transactions of the store's own only (there is no application transaction to join). A transaction keeps its
     * claim and completion to itself and writes them at its commit, only if the key's record is still the one its
     * claim saw: a plain stand-in for a database's row lock, which keeps the claim's decision valid until the commit.
     */
    @Override
    public TransactionalClaims transactionalClaims() {
        return new TransactionalClaims() {
            @Override
            public Optional<Transaction> join() {
                return Optional.empty();
            }

            @Override
            public Transaction joinOrBegin() {
                ensureOpen();
                return new ReferenceTransaction();
            }
        };
    }

    /** One transaction: at most one claim, its completion, written together at the commit or dropped at close. */
    private final class ReferenceTransaction implements TransactionalClaims.Transaction {
        private String storageKey;
        /** The key's record as stored when the claim was decided, which the commit requires unchanged. */
        @Nullable
        private IdempotencyRecord seen;
        /** What the commit writes; null before a winning claim and after the commit. */
        @Nullable
        private IdempotencyRecord pending;

        @Override
        public boolean joined() {
            return false;
        }

        @Override
        public Optional<ClaimOutcome> claim(ClaimRequest request, Duration lockWait) {
            ensureOpen();
            synchronized (lock()) {
                String key = storageKey(request.key());
                Instant now = now();
                IdempotencyRecord live = live(key, now);
                if (live != null && !claimable(live, now, request.window())) {
                    return Optional.of(new ClaimOutcome.Existing(asReportedToALoser(live, now), reportedTime(now)));
                }
                long token = nextToken(key);
                storageKey = key;
                seen = backend.records.get(key);
                pending = claimedInTransactionOver(live, request, token, now);
                return Optional.of(new ClaimOutcome.Acquired(token, live, reportedTime(now)));
            }
        }

        @Override
        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
            ensureOpen();
            IdempotencyRecord claimed = pending;
            if (claimed == null || !storageKey(key).equals(storageKey) || claimed.fencingToken() != fencingToken
                    || claimed.state() != RecordState.IN_PROGRESS) {
                return false;
            }
            Instant now = now();
            pending = claimed.finished(RecordState.COMPLETED, kept(result), now, expiresAt(now, ttl));
            return true;
        }

        @Override
        public void commit() {
            ensureOpen();
            IdempotencyRecord writing = pending;
            if (writing == null) {
                return;
            }
            synchronized (lock()) {
                if (backend.records.get(storageKey) != seen) {
                    throw new IdempotencyStoreException("the reference store's transaction of " + storageKey
                            + " met another write of the key before its commit");
                }
                backend.records.put(storageKey, writing);
            }
            pending = null;
            if (writing.state() != RecordState.IN_PROGRESS) {
                signal(storageKey, "complete");
            }
        }

        @Override
        public void close() {
            pending = null; // what the commit did not write is rolled back
        }
    }

    private boolean signalled(String key, String write, boolean applied) {
        if (applied) {
            signal(storageKey(key), write);
        }
        return applied;
    }

    @Override
    public void close() {
        closed = true;
    }

    protected final void ensureOpen() {
        if (closed) {
            throw new IdempotencyStoreException("the reference store is closed");
        }
    }
}
