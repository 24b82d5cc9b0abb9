package dev.idem.store;

import dev.idem.IdempotencyStoreException;
import jakarta.annotation.Nonnull;

import java.time.Duration;
import java.util.Optional;

/**
 * An optional capability of a store that keeps its records in a database the method itself writes to: it claims a
 * key, and completes the claim, inside a transaction of that database, so that the claim, the method's writes and
 * the completion commit or roll back as one (the transactional mode of SEMANTICS.md section 9). A store offers it
 * through {@link IdempotencyStore#transactionalClaims()}; the default is that it does not.
 *
 * <p>The contract, beyond {@link IdempotencyStore}'s:
 * <ul>
 *   <li>A {@link Transaction} is bound to the thread that began or joined it, until it is closed on that thread.
 *       The method running inside it writes through the same transaction (how it reaches it is the store's API).</li>
 *   <li>{@link Transaction#claim} locks the key's row until the transaction ends. Another transaction's claim of the
 *       same key waits for that, up to its own {@code lockWait}, and then sees the outcome as committed: the
 *       completed record, or the key as it was before when the transaction rolled back. So while the transaction
 *       is open the row lock, not the lease, keeps other callers out: nobody can read the claim to take it over,
 *       and the engine runs no heartbeat (a renewal on another connection would only wait on that lock).</li>
 *   <li>Nothing is visible to anyone else before {@link Transaction#commit}; {@link Transaction#close} without a
 *       commit rolls back the claim, the completion and every write the method made in between.</li>
 * </ul>
 */
public interface TransactionalClaims {

    /**
     * Joins the transaction the application has bound to this thread on the store's database. The application
     * commits or rolls it back; {@link Transaction#commit} and {@link Transaction#close} only settle the part that
     * began here (for instance through a savepoint), and the application's transaction stays usable either way.
     *
     * @return the joined transaction, or empty when the application has bound none to this thread
     * @throws IdempotencyStoreException when the database cannot be reached
     */
    @Nonnull
    Optional<Transaction> join();

    /**
     * Joins the transaction the application has bound to this thread, or else begins one of the store's own, bound
     * to this thread until it is closed (so idempotent methods nested in it join it).
     *
     * @return the transaction; never null
     * @throws IdempotencyStoreException when the database cannot be reached
     */
    @Nonnull
    Transaction joinOrBegin();

    /** One execution's part of a database transaction: its claim, its completion, and the method's writes between. */
    interface Transaction extends AutoCloseable {

        /** {@return whether the application owns the transaction, so that it may still roll back after commit} */
        boolean joined();

        /**
         * Claims the key as {@link IdempotencyStore#claim} does, inside this transaction, waiting up to
         * {@code lockWait} for another transaction that holds the key's row.
         *
         * @param request  the claim
         * @param lockWait how long to wait on another transaction's lock of the key's row; zero means not at all
         *                 (the store waits as briefly as it can)
         * @return the outcome, or empty when another transaction held the key's row for longer than
         *         {@code lockWait}; after an empty answer the transaction must be closed
         * @throws IdempotencyStoreException when the database fails
         */
        @Nonnull
        Optional<ClaimOutcome> claim(@Nonnull ClaimRequest request, @Nonnull Duration lockWait);

        /**
         * Completes the claim inside this transaction, as {@link IdempotencyStore#complete} does.
         *
         * @param key the key claimed in this transaction
         * @param fencingToken the token the claim returned
         * @param result the encoded result, kept as given
         * @param ttl how long the result is replayed
         * @return {@code false}, changing nothing, when the token is not current
         * @throws IdempotencyStoreException when the database fails
         */
        boolean complete(@Nonnull String key, long fencingToken, @Nonnull byte[] result, @Nonnull Duration ttl);

        /**
         * Commits the store's own transaction, or keeps this part of a joined one (the application commits it).
         *
         * @throws IdempotencyStoreException when the commit fails; whether it applied is then unknown, but it
         *                                   applied whole or not at all
         */
        void commit();

        /**
         * Rolls back whatever {@link #commit} did not settle (the claim and the method's writes since it), releases
         * what the transaction holds and unbinds it from the thread. Never throws.
         */
        @Override
        void close();
    }
}
