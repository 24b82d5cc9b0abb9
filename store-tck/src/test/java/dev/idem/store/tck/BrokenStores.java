package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import jakarta.annotation.Nullable;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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

    /** The gap a network round trip leaves between a read and the write decided from it. */
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
}
