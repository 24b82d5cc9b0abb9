package dev.idem.core;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.TransactionalClaims;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store offering {@link TransactionalClaims} the way a database store keeps them, for the engine's tests of
 * its transactional path: a transaction's claim and completion go to the store at once, and closing without a
 * commit takes the claim back (as a rollback would). The test decides what a database would: whether the
 * application has bound a transaction to the thread, whether another transaction holds the key's row, and failures.
 */
final class TransactionalTestStore extends DelegatingStore {
    /** Whether an application transaction is bound to the thread, so {@code join()} finds one. */
    volatile boolean applicationTransaction;
    /** Whether another transaction holds every key's row past any lock wait (a claim answers empty). */
    volatile boolean rowHeldElsewhere;
    /** Whether a completion is refused (as after the record was deleted under the transaction). */
    volatile boolean refuseCompletion;
    /** Thrown by {@code joinOrBegin()}/{@code join()} when set. */
    volatile IdempotencyStoreException beginFailure;
    /** Thrown by a transaction's claim when set. */
    volatile IdempotencyStoreException claimFailure;

    final List<Duration> lockWaits = new CopyOnWriteArrayList<>();
    final AtomicInteger begun = new AtomicInteger();
    final AtomicInteger commits = new AtomicInteger();
    final AtomicInteger rollbacks = new AtomicInteger();

    TransactionalTestStore(IdempotencyStore delegate) {
        super(delegate);
    }

    @Override
    public TransactionalClaims transactionalClaims() {
        return new TransactionalClaims() {
            @Override
            public Optional<Transaction> join() {
                failIfAsked();
                return applicationTransaction ? Optional.of(new Tx(true)) : Optional.empty();
            }

            @Override
            public Transaction joinOrBegin() {
                failIfAsked();
                return new Tx(applicationTransaction);
            }
        };
    }

    private void failIfAsked() {
        if (beginFailure != null) {
            throw beginFailure;
        }
        begun.incrementAndGet();
    }

    private final class Tx implements TransactionalClaims.Transaction {
        private final boolean joined;
        private String claimedKey;
        private long token;
        private boolean committed;

        Tx(boolean joined) {
            this.joined = joined;
        }

        @Override
        public boolean joined() {
            return joined;
        }

        @Override
        public Optional<ClaimOutcome> claim(ClaimRequest request, Duration lockWait) {
            lockWaits.add(lockWait);
            if (claimFailure != null) {
                throw claimFailure;
            }
            if (rowHeldElsewhere) {
                return Optional.empty();
            }
            ClaimOutcome outcome = delegate.claim(request);
            if (outcome instanceof ClaimOutcome.Acquired) {
                claimedKey = request.key();
                token = ((ClaimOutcome.Acquired) outcome).fencingToken();
            }
            return Optional.of(outcome);
        }

        @Override
        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
            return !refuseCompletion && delegate.complete(key, fencingToken, result, ttl);
        }

        @Override
        public void commit() {
            committed = true;
            commits.incrementAndGet();
        }

        @Override
        public void close() {
            if (!committed && claimedKey != null) {
                rollbacks.incrementAndGet();
                delegate.delete(claimedKey); // the rollback takes the claim (and any completion) with it
            }
        }
    }
}
