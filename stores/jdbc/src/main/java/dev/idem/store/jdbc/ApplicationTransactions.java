package dev.idem.store.jdbc;

import jakarta.annotation.Nonnull;

import java.sql.Connection;
import java.util.Optional;

/**
 * The transactions of an application's own transaction manager (Spring's, for instance), for the jdbc store's
 * transactional mode ({@code @Idempotent(storeTransaction = REQUIRED or MANDATORY)}): given to the store with
 * {@link JdbcIdempotencyStore.Builder#applicationTransactions}, it lets a call's claim, the method's own writes and
 * the completion share the transaction the manager keeps for the thread, so that they commit or roll back together
 * whatever API the method writes through.
 *
 * <p>A transaction bound with {@link JdbcTransactions#join} is still found first. Otherwise the store joins
 * {@link #current()} (a savepoint in it holds the call's part, and the application commits), or else, for
 * {@code REQUIRED}, asks {@link #begin()} for a new transaction, which the store commits when the method returns and
 * rolls back when it throws.
 *
 * <p>Implementations are thread-safe; every method is called on the thread that runs the idempotent call.
 */
public interface ApplicationTransactions {

    /**
     * The connection of the transaction the manager has open on this thread over the store's data source.
     *
     * @return the connection, in a transaction (auto-commit off), which the store never commits, rolls back or
     *         closes; empty when no such transaction is open
     */
    @Nonnull
    Optional<Connection> current();

    /**
     * Begins a transaction of the manager's over the store's data source, at READ COMMITTED (a waiter must see what
     * the holder of a key committed), bound to this thread for the method's writes, so that {@link #current()}
     * answers it until it ends.
     *
     * @return the transaction, which the store commits or rolls back once
     * @throws RuntimeException when it cannot begin; the store reports it as a store failure
     */
    @Nonnull
    Transaction begin();

    /** A transaction {@link #begin()} began, ended by the store. */
    interface Transaction {

        /** {@return the transaction's connection, which the store does not close} */
        @Nonnull
        Connection connection();

        /**
         * Commits the transaction, with every write the method made in it.
         *
         * @throws RuntimeException when the commit fails; the manager has then rolled it back or does not know
         *                          whether it applied, and the store reports it as a store failure
         */
        void commit();

        /** Rolls the transaction back; called at most once, and never after {@link #commit()}. */
        void rollback();
    }
}
