package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.KeyWatch;
import dev.idem.store.KeyWatchers;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import jakarta.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Stores with one planted bug each: the {@link ReferenceStore} with a single step changed, the way a real store gets
 * it wrong. {@link StoreVariant} names the TCK tests each must fail.
 */
final class BrokenStores {
    private BrokenStores() {
    }

    /**
     * The gap a network round trip leaves between a read and the write decided from it, widened so that the race
     * tests see the racy stores below fail. With no gap at all (a read-then-write inside one JVM) they rarely do,
     * which is why an in-process store's atomicity must come from its code (one {@code compute}), not from these
     * tests.
     */
    private static void roundTrip() {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }

    /**
     * Counts tokens per key and starts again at 1 once the key's record is deleted or found expired (a release
     * keeps the count): a stale owner's token becomes current again.
     */
    static final class TokensRestartAfterDeleteOrExpiry extends ReferenceStore {
        private final Map<String, Long> lastTokens = new ConcurrentHashMap<>();

        TokensRestartAfterDeleteOrExpiry(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected long nextToken(String storageKey) {
            return lastTokens.merge(storageKey, 1L, Long::sum);
        }

        @Override
        protected IdempotencyRecord live(String storageKey, Instant now) {
            IdempotencyRecord stored = backend.records.get(storageKey);
            if (stored != null && stored.isExpiredAt(now)) {
                lastTokens.remove(storageKey);
            }
            return super.live(storageKey, now);
        }

        @Override
        public void delete(String key) {
            super.delete(key);
            lastTokens.remove(storageKey(key));
        }
    }

    /** {@code release} checks the token only, so a finished record's token deletes it. */
    static final class ReleaseRemovesAFinishedRecord extends ReferenceStore {
        ReleaseRemovesAFinishedRecord(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean mayRelease(IdempotencyRecord current) {
            return true;
        }
    }

    /** {@code renew} refuses a COMPLETED record but forgets FAILED, which it turns back into IN_PROGRESS. */
    static final class RenewReopensAFailure extends ReferenceStore {
        RenewReopensAFailure(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean mayRenew(IdempotencyRecord current) {
            return current.state() != RecordState.COMPLETED;
        }
    }

    /** Applies the window to every record, so a window shorter than the lease supersedes an execution in progress. */
    static final class WindowEndsAnExecutionInProgress extends ReferenceStore {
        WindowEndsAnExecutionInProgress(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean claimable(IdempotencyRecord live, Instant now, Duration window) {
            return live.isClaimableAt(now, window)
                    || !window.isZero() && !now.isBefore(live.startedAt().plus(window));
        }
    }

    /** A takeover writes only the new token and lease over the old record, keeping its owner and payload hash. */
    static final class TakeoverKeepsTheOldOwnerAndPayloadHash extends ReferenceStore {
        TakeoverKeepsTheOldOwnerAndPayloadHash(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected IdempotencyRecord claimedOver(@Nullable IdempotencyRecord live, ClaimRequest request, long token,
                                                Instant now) {
            if (live == null || live.state() != RecordState.IN_PROGRESS) {
                return super.claimedOver(live, request, token, now);
            }
            return IdempotencyRecord.inProgress(live.key(), live.payloadHash(), live.owner(), token, live.startedAt(),
                    now.plus(request.lease()));
        }
    }

    /**
     * A takeover stamps a new start, as a fresh claim does: the window of the execution the new owner continues is
     * counted from the takeover, so it holds duplicates out for longer than the caller asked.
     */
    static final class TakeoverRestartsTheExecution extends ReferenceStore {
        TakeoverRestartsTheExecution(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected IdempotencyRecord claimedOver(@Nullable IdempotencyRecord live, ClaimRequest request, long token,
                                                Instant now) {
            return IdempotencyRecord.inProgress(request.key(), request.payloadHash(), request.owner(), token, now,
                    now.plus(request.lease()));
        }
    }

    /** A losing claim rebuilds the record it returns and stamps its start with the loser's time. */
    static final class LosingClaimReportsItsOwnStart extends ReferenceStore {
        LosingClaimReportsItsOwnStart(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected IdempotencyRecord asReportedToALoser(IdempotencyRecord live, Instant now) {
            return new IdempotencyRecord(live.key(), live.state(), live.payloadHash(), live.owner(),
                    live.fencingToken(), now, live.leaseUntil(), live.completedAt(), live.expiresAt(), live.result());
        }
    }

    /** Keeps the caller's array itself, so the caller reusing its buffer rewrites the stored result. */
    static final class KeepsTheCallersArray extends ReferenceStore {
        KeepsTheCallersArray(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected byte[] kept(byte[] given) {
            return given;
        }
    }

    /** Every claim reads, decides and writes with no lock, fresh keys included. */
    static final class ReadThenWriteClaim extends ReferenceStore {
        ReadThenWriteClaim(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            ensureOpen();
            return claimUnlocked(request);
        }

        @Override
        protected void beforeWrite() {
            roundTrip();
        }
    }

    /**
     * A claim of a fresh key is atomic (an insert the backend refuses twice), but a takeover or a supersede reads
     * the record, decides, and overwrites it with no lock: the race test on fresh keys alone cannot see it.
     */
    static final class ReadThenWriteTakeover extends ReferenceStore {
        ReadThenWriteTakeover(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            ensureOpen();
            if (!backend.records.containsKey(storageKey(request.key()))) {
                synchronized (lock()) {
                    return claimUnlocked(request);
                }
            }
            return claimUnlocked(request);
        }

        @Override
        protected void beforeWrite() {
            roundTrip();
        }
    }

    /** {@code complete} reads the record, checks the token, then writes with no lock: a takeover in between is lost. */
    static final class ReadThenWriteComplete extends ReferenceStore {
        ReadThenWriteComplete(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
            ensureOpen();
            return completeUnlocked(key, fencingToken, result, ttl);
        }

        @Override
        protected void beforeWrite() {
            roundTrip();
        }
    }

    /** {@code renew} reads the record, checks the token, then writes with no lock: a takeover in between is lost. */
    static final class ReadThenWriteRenew extends ReferenceStore {
        ReadThenWriteRenew(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public boolean renew(String key, long fencingToken, Duration lease) {
            ensureOpen();
            return renewUnlocked(key, fencingToken, lease);
        }

        @Override
        protected void beforeWrite() {
            roundTrip();
        }
    }

    /**
     * Each instance locks only itself, as a JVM lock around a read and a write to a shared database would: atomic
     * in one process, racy across two.
     */
    static final class LockPerInstance extends ReferenceStore {
        private final Object ownLock = new Object();

        LockPerInstance(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected Object lock() {
            return ownLock;
        }

        @Override
        protected void beforeWrite() {
            roundTrip();
        }
    }

    /**
     * Claims are atomic in the backend, but {@code complete} and {@code renew} read, check the token and write under
     * a lock of this instance only (one it also takes around claims): right in one process, where the lock orders
     * every write, and racy against another process's takeover.
     */
    static final class WritesLockedPerInstance extends ReferenceStore {
        private final Object ownLock = new Object();

        WritesLockedPerInstance(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            synchronized (ownLock) {
                return super.claim(request);
            }
        }

        @Override
        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
            ensureOpen();
            synchronized (ownLock) {
                return completeUnlocked(key, fencingToken, result, ttl);
            }
        }

        @Override
        public boolean renew(String key, long fencingToken, Duration lease) {
            ensureOpen();
            synchronized (ownLock) {
                return renewUnlocked(key, fencingToken, lease);
            }
        }

        @Override
        protected void beforeWrite() {
            roundTrip();
        }
    }

    /** Each instance counts tokens itself, as an {@code AtomicLong} in front of a shared database would. */
    static final class TokenCounterPerInstance extends ReferenceStore {
        private final AtomicLong ownTokens = new AtomicLong();

        TokenCounterPerInstance(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected long nextToken(String storageKey) {
            return ownTokens.incrementAndGet();
        }
    }

    /**
     * Each instance answers {@code get} from the records it last read or wrote itself, and forgets a key only when it
     * writes that key: always right in one process, stale as soon as another process writes.
     */
    static final class CachesRecordsPerInstance extends ReferenceStore {
        private final Map<String, IdempotencyRecord> seen = new ConcurrentHashMap<>();

        CachesRecordsPerInstance(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public Optional<IdempotencyRecord> get(String key) {
            ensureOpen();
            IdempotencyRecord cached = seen.get(key);
            if (cached != null && !cached.isExpiredAt(now())) {
                return Optional.of(cached);
            }
            Optional<IdempotencyRecord> read = super.get(key);
            read.ifPresent(r -> seen.put(key, r));
            return read;
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            seen.remove(request.key());
            return super.claim(request);
        }

        @Override
        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
            seen.remove(key);
            return super.complete(key, fencingToken, result, ttl);
        }

        @Override
        public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
            seen.remove(key);
            return super.fail(key, fencingToken, failure, failureTtl);
        }

        @Override
        public boolean release(String key, long fencingToken) {
            seen.remove(key);
            return super.release(key, fencingToken);
        }

        @Override
        public boolean renew(String key, long fencingToken, Duration lease) {
            seen.remove(key);
            return super.renew(key, fencingToken, lease);
        }

        @Override
        public void delete(String key) {
            seen.remove(key);
            super.delete(key);
        }
    }

    /** Reads the JVM's clock (the one a provider is given) although the backend keeps time of its own. */
    static final class ReadsTheJvmClock extends ReferenceStore {
        ReadsTheJvmClock(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected Instant now() {
            return injectedClock.instant();
        }
    }

    /** Keeps its server's time but reports the JVM's clock as its time in a claim's answer. */
    static final class ReportsTheJvmClockAsItsTime extends ReferenceStore {
        ReportsTheJvmClockAsItsTime(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected Instant reportedTime(Instant now) {
            return injectedClock.instant();
        }
    }

    /** Compares keys case-insensitively, as a {@code _ci} collation does. */
    static final class FoldsTheCaseOfKeys extends ReferenceStore {
        FoldsTheCaseOfKeys(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected String storageKey(String key) {
            return key.toLowerCase(Locale.ROOT);
        }
    }

    /** Ignores trailing spaces in keys, as a PAD SPACE collation does. */
    static final class IgnoresTrailingSpaces extends ReferenceStore {
        IgnoresTrailingSpaces(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected String storageKey(String key) {
            int end = key.length();
            while (end > 0 && key.charAt(end - 1) == ' ') {
                end--;
            }
            return key.substring(0, end);
        }
    }

    /** Keeps the first 1,000 characters of a key, as a {@code VARCHAR(1000)} column that truncates would. */
    static final class TruncatesKeys extends ReferenceStore {
        TruncatesKeys(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected String storageKey(String key) {
            return key.length() > 1000 ? key.substring(0, 1000) : key;
        }
    }

    /** A second {@code close} throws, as closing an already closed connection pool may. */
    static final class SecondCloseThrows extends ReferenceStore {
        private final AtomicBoolean closedOnce = new AtomicBoolean();

        SecondCloseThrows(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public void close() {
            if (!closedOnce.compareAndSet(false, true)) {
                throw new IllegalStateException("the pool is already closed");
            }
            super.close();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Bugs the tests that predate the planted ones catch

    /** Writes the owner where the payload hash goes and back, as positional SQL parameters in the wrong order do. */
    static final class SwapsOwnerAndPayloadHash extends ReferenceStore {
        SwapsOwnerAndPayloadHash(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected IdempotencyRecord claimedOver(@Nullable IdempotencyRecord live, ClaimRequest request, long token,
                                                Instant now) {
            IdempotencyRecord right = super.claimedOver(live, request, token, now);
            return IdempotencyRecord.inProgress(right.key(), right.owner(), right.payloadHash(), token,
                    right.startedAt(), right.leaseUntil());
        }
    }

    /** Compares leases in whole seconds with now rounded up, so a lease passes up to a second early. */
    static final class LeasePassesUpToASecondEarly extends ReferenceStore {
        LeasePassesUpToASecondEarly(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean claimable(IdempotencyRecord live, Instant now, Duration window) {
            if (live.state() != RecordState.IN_PROGRESS) {
                return super.claimable(live, now, window);
            }
            Instant seconds = now.truncatedTo(ChronoUnit.SECONDS);
            Instant roundedUp = seconds.equals(now) ? now : seconds.plusSeconds(1);
            return !roundedUp.isBefore(live.leaseUntil());
        }
    }

    /** Holds a lease through its last instant ({@code now > leaseUntil} where {@code >=} is meant). */
    static final class LeaseHeldAtItsEnd extends ReferenceStore {
        LeaseHeldAtItsEnd(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean claimable(IdempotencyRecord live, Instant now, Duration window) {
            return live.state() == RecordState.IN_PROGRESS
                    ? now.isAfter(live.leaseUntil())
                    : super.claimable(live, now, window);
        }
    }

    /** A claim never reports what it replaced, as an upsert that returns only the new row. */
    static final class ReportsNothingReplaced extends ReferenceStore {
        ReportsNothingReplaced(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            ClaimOutcome outcome = super.claim(request);
            return outcome instanceof ClaimOutcome.Acquired acquired
                    ? new ClaimOutcome.Acquired(acquired.fencingToken(), null)
                    : outcome;
        }
    }

    /** Counts tokens per key and fences writes by token alone, forgetting the key in the update's condition. */
    static final class WritesMatchedByTokenAlone extends ReferenceStore {
        private final Map<String, Long> lastTokens = new ConcurrentHashMap<>();

        WritesMatchedByTokenAlone(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected long nextToken(String storageKey) {
            return lastTokens.merge(storageKey, 1L, Long::sum);
        }

        @Override
        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
            ensureOpen();
            synchronized (lock()) {
                Instant now = now();
                boolean applied = false;
                for (Map.Entry<String, IdempotencyRecord> entry : backend.records.entrySet()) {
                    IdempotencyRecord r = entry.getValue();
                    if (r.fencingToken() == fencingToken && r.state() == RecordState.IN_PROGRESS) {
                        entry.setValue(r.finished(RecordState.COMPLETED, kept(result), now, expiresAt(now, ttl)));
                        applied = true;
                    }
                }
                return applied;
            }
        }
    }

    /** {@code renew} checks the record is in progress but not whose it is, as a renewal by key alone would. */
    static final class RenewIgnoresTheToken extends ReferenceStore {
        RenewIgnoresTheToken(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public boolean renew(String key, long fencingToken, Duration lease) {
            ensureOpen();
            synchronized (lock()) {
                Instant now = now();
                IdempotencyRecord current = live(storageKey(key), now);
                if (current == null || current.state() != RecordState.IN_PROGRESS) {
                    return false;
                }
                backend.records.put(storageKey(key), current.withLease(now.plus(lease)));
                return true;
            }
        }
    }

    /** Keeps the token counter in the record, so a release, which removes the record, starts it again. */
    static final class TokensRestartAfterRelease extends ReferenceStore {
        TokensRestartAfterRelease(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected long nextToken(String storageKey) {
            IdempotencyRecord stored = backend.records.get(storageKey);
            return stored == null ? 1 : stored.fencingToken() + 1;
        }
    }

    /**
     * Draws the claim's token before it takes the lock that settles the claim, as a store that takes the next value
     * of its counter and then inserts: a claim that waits for the lock meanwhile can win with a token below one the
     * key was given while it waited. The counter is the backend's, so every token is still unique.
     *
     * <p>Left to the scheduler, that wait is a few instructions wide and a loaded machine may never open it, so the
     * store opens it itself: the first claim through an instance draws its token and then waits, as if descheduled,
     * until another claimer has held the key with a later token; the release or deletion that ends that hold settles
     * the waiting claim under the same lock, so no third claimer can take the freed key first. A claim that nobody
     * overtakes within {@link #OVERTAKING_WAIT} (a test with one claimer) settles by itself, so nothing hangs.
     */
    static final class DrawsTheTokenBeforeTheClaimIsSettled extends ReferenceStore {
        private static final Duration OVERTAKING_WAIT = Duration.ofSeconds(20);

        private final AtomicBoolean laggardChosen = new AtomicBoolean();
        /** The claim drawn first and not yet settled; guarded by {@link #lock()}. */
        @Nullable
        private Laggard laggard;
        /** The token of the claim being settled under {@link #lock()}, which {@link #nextToken} hands it. */
        private long settling;

        DrawsTheTokenBeforeTheClaimIsSettled(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            ensureOpen();
            long drawn = backend.tokens.incrementAndGet();
            if (!laggardChosen.compareAndSet(false, true)) {
                synchronized (lock()) {
                    return settle(request, drawn);
                }
            }
            Laggard waiting = new Laggard(request, drawn);
            synchronized (lock()) {
                laggard = waiting;
            }
            waiting.awaitOvertaking();
            synchronized (lock()) {
                if (waiting.outcome == null) {
                    laggard = null;
                    waiting.outcome = settle(request, drawn);
                }
                return waiting.outcome;
            }
        }

        @Override
        public boolean release(String key, long fencingToken) {
            synchronized (lock()) {
                boolean released = super.release(key, fencingToken);
                if (released) {
                    settleTheLaggardOnceOvertaken(key, fencingToken);
                }
                return released;
            }
        }

        @Override
        public void delete(String key) {
            synchronized (lock()) {
                IdempotencyRecord deleted = backend.records.get(storageKey(key));
                super.delete(key);
                if (deleted != null) {
                    settleTheLaggardOnceOvertaken(key, deleted.fencingToken());
                }
            }
        }

        @Override
        protected long nextToken(String storageKey) {
            return settling;
        }

        /** Settles the waiting claim of {@code key} if the hold that just ended had a later token than its own. */
        private void settleTheLaggardOnceOvertaken(String key, long endedHold) {
            Laggard waiting = laggard;
            if (waiting != null && waiting.request.key().equals(key) && endedHold > waiting.drawn) {
                laggard = null;
                waiting.outcome = settle(waiting.request, waiting.drawn);
                waiting.overtaken.countDown();
            }
        }

        private ClaimOutcome settle(ClaimRequest request, long drawn) {
            settling = drawn;
            return claimUnlocked(request);
        }

        /** A claim that drew its token and waits to be overtaken; its outcome is written under the lock. */
        private static final class Laggard {
            final ClaimRequest request;
            final long drawn;
            final CountDownLatch overtaken = new CountDownLatch(1);
            @Nullable
            ClaimOutcome outcome;

            Laggard(ClaimRequest request, long drawn) {
                this.request = request;
                this.drawn = drawn;
            }

            void awaitOvertaking() {
                try {
                    overtaken.await(OVERTAKING_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** A claim in a transaction that takes over or supersedes keeps the replaced record's payload hash. */
    static final class TransactionalClaimKeepsTheOldPayloadHash extends ReferenceStore {
        TransactionalClaimKeepsTheOldPayloadHash(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected IdempotencyRecord claimedInTransactionOver(@Nullable IdempotencyRecord live, ClaimRequest request,
                                                             long token, Instant now) {
            IdempotencyRecord claimed = super.claimedInTransactionOver(live, request, token, now);
            return live == null ? claimed : IdempotencyRecord.inProgress(claimed.key(), live.payloadHash(),
                    claimed.owner(), token, claimed.startedAt(), claimed.leaseUntil());
        }
    }

    /** Closing a transaction without a commit commits it: a claim that should have rolled back stays. */
    static final class RollbackKeepsTheTransactionsWrites extends ReferenceStore {
        RollbackKeepsTheTransactionsWrites(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public TransactionalClaims transactionalClaims() {
            TransactionalClaims real = super.transactionalClaims();
            return new TransactionalClaims() {
                @Override
                public Optional<Transaction> join() {
                    return real.join();
                }

                @Override
                public Transaction joinOrBegin() {
                    Transaction tx = real.joinOrBegin();
                    return new Transaction() {
                        @Override
                        public boolean joined() {
                            return tx.joined();
                        }

                        @Override
                        public Optional<ClaimOutcome> claim(ClaimRequest request, Duration lockWait) {
                            return tx.claim(request, lockWait);
                        }

                        @Override
                        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
                            return tx.complete(key, fencingToken, result, ttl);
                        }

                        @Override
                        public void commit() {
                            tx.commit();
                        }

                        @Override
                        public void close() {
                            tx.commit(); // the bug: what was to be rolled back is written
                            tx.close();
                        }
                    };
                }
            };
        }
    }

    /** {@code delete} shares release's condition and removes only a claim in progress. */
    static final class DeleteKeepsFinishedRecords extends ReferenceStore {
        DeleteKeepsFinishedRecords(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public void delete(String key) {
            ensureOpen();
            backend.records.computeIfPresent(storageKey(key),
                    (k, r) -> r.state() == RecordState.IN_PROGRESS ? null : r);
        }
    }

    /** Keeps results as text, as a store with a String codec does: bytes that are not UTF-8 come back changed. */
    static final class KeepsResultsAsText extends ReferenceStore {
        KeepsResultsAsText(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected byte[] kept(byte[] given) {
            return new String(given, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Decides expiry with a strict comparison, so a record is still there at its expiry instant. */
    static final class ExpiresAMillisecondLate extends ReferenceStore {
        ExpiresAMillisecondLate(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected IdempotencyRecord live(String storageKey, Instant now) {
            IdempotencyRecord stored = backend.records.get(storageKey);
            return stored == null || stored.expiresAt() != null && now.isAfter(stored.expiresAt()) ? null : stored;
        }
    }

    /** Applies no jitter, so records written together expire together. */
    static final class NoJitter extends ReferenceStore {
        NoJitter(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected Instant expiresAt(Instant now, Duration ttl) {
            return now.plus(ttl);
        }
    }

    /** Counts the window from the completion instead of from the start of the execution. */
    static final class WindowCountedFromCompletion extends ReferenceStore {
        WindowCountedFromCompletion(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean claimable(IdempotencyRecord live, Instant now, Duration window) {
            if (live.state() == RecordState.IN_PROGRESS || window.isZero() || live.isExpiredAt(now)) {
                return super.claimable(live, now, window);
            }
            return !now.isBefore(live.completedAt().plus(window));
        }
    }

    /** Reads a zero window as one that has always passed, so without a window a finished record is superseded. */
    static final class ZeroWindowSupersedesAtOnce extends ReferenceStore {
        ZeroWindowSupersedesAtOnce(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean claimable(IdempotencyRecord live, Instant now, Duration window) {
            return super.claimable(live, now, window)
                    || live.state() != RecordState.IN_PROGRESS && !now.isBefore(live.startedAt().plus(window));
        }
    }

    /** Lets a claim over a remembered failure, as if FAILED were absent. */
    static final class ForgetsFailures extends ReferenceStore {
        ForgetsFailures(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected boolean claimable(IdempotencyRecord live, Instant now, Duration window) {
            return live.state() == RecordState.FAILED || super.claimable(live, now, window);
        }
    }

    /** Extends a renewed lease from its old end instead of from now. */
    static final class RenewsFromTheOldLease extends ReferenceStore {
        RenewsFromTheOldLease(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected Instant renewedLeaseUntil(IdempotencyRecord current, Instant now, Duration lease) {
            return current.leaseUntil().plus(lease);
        }
    }

    /** {@code close} does nothing, as in a store whose pool reopens itself: a closed store keeps working. */
    static final class KeepsWorkingAfterClose extends ReferenceStore {
        KeepsWorkingAfterClose(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        public void close() {
        }
    }

    /** Keeps its watches to itself, as a store that signals only its own process's writes: a peer's write is unseen. */
    static final class WatchesPerInstance extends ReferenceStore {
        private final KeyWatchers own = new KeyWatchers();

        WatchesPerInstance(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected KeyWatchers watchers() {
            return own;
        }
    }

    /** Wakes only a thread already waiting, like a notify without a flag: a write before the wait is lost. */
    static final class ForgetsASignalBeforeTheWait extends ReferenceStore {
        ForgetsASignalBeforeTheWait(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected KeyWatch opened(String storageKey) {
            KeyWatch registered = super.opened(storageKey);
            return new KeyWatch() {
                @Override
                public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
                    registered.await(0, TimeUnit.NANOSECONDS); // drops what came before the wait
                    return registered.await(timeout, unit);
                }

                @Override
                public void close() {
                    registered.close();
                }
            };
        }
    }

    /** Any finishing write wakes every watch, whatever its key: waiters on quiet keys spin. */
    static final class SignalsEveryWatch extends ReferenceStore {
        SignalsEveryWatch(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected void signal(String storageKey, String write) {
            watchers().signalAll();
        }
    }

    /** Signals completions and failures only: a waiter for a released or deleted key waits for its re-check. */
    static final class SignalsOnlyFinishedRecords extends ReferenceStore {
        SignalsOnlyFinishedRecords(Backend backend, Clock clock) {
            super(backend, clock);
        }

        @Override
        protected void signal(String storageKey, String write) {
            if (write.equals("complete") || write.equals("fail")) {
                super.signal(storageKey, write);
            }
        }
    }
}
