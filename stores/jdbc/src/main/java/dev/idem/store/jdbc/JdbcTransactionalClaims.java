package dev.idem.store.jdbc;

import dev.idem.store.TransactionalClaims;
import jakarta.annotation.Nullable;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.Optional;

/**
 * The jdbc store's transactional mode, on PostgreSQL: a claim inside the transaction bound to the thread
 * ({@link JdbcTransactions}), else inside the application's transaction manager's on the thread
 * ({@link ApplicationTransactions}, when the store has it), or inside one begun (by that manager, or else on the
 * store's data source and bound for the method).
 *
 * <p>Why PostgreSQL only. Its claim is one statement that locks the key's row ({@code SELECT ... FOR UPDATE}) or
 * inserts it ({@code ON CONFLICT DO NOTHING}); a second transaction's claim waits on that row or that insert, bounded
 * by {@code lock_timeout}, and at READ COMMITTED its next statement sees what the first committed. The other
 * dialects do not give that wait without side effects, see {@link #whyNot}.
 */
final class JdbcTransactionalClaims implements TransactionalClaims {
    private final JdbcIdempotencyStore store;
    private final DataSource dataSource;
    @Nullable
    private final ApplicationTransactions application;

    JdbcTransactionalClaims(JdbcIdempotencyStore store, DataSource dataSource,
                            @Nullable ApplicationTransactions application) {
        this.store = store;
        this.dataSource = dataSource;
        this.application = application;
    }

    /** Why the transactional mode is refused on {@code dialect}, for the planner's message. */
    static String whyNot(Dialect dialect) {
        String why = switch (dialect) {
            case MARIADB -> "on MariaDB/MySQL, InnoDB's duplicate-key check takes shared locks, so two concurrent first"
                    + " claims of a key deadlock, and a deadlock rolls back the caller's whole transaction instead of"
                    + " making it wait on the row";
            case SQLITE -> "on SQLite a write transaction locks the whole database file, so one execution would hold"
                    + " back every other key's callers and writers, and a waiter would wait on the file"
                    + " (busy_timeout) rather than on the key's row";
            case H2 -> "on H2 the mode has not been verified (its row locks and lock timeouts under this claim were"
                    + " not tested), so it is refused rather than promised";
            case POSTGRESQL -> "PostgreSQL supports it";
        };
        return "the jdbc store runs storeTransaction on PostgreSQL only: " + why + ". Use storeTransaction = NONE"
                + " (the default) with this database, or keep the records in PostgreSQL.";
    }

    @Override
    public Optional<Transaction> join() {
        return open().map(connection -> JdbcClaimTransaction.joining(store, connection));
    }

    @Override
    public Transaction joinOrBegin() {
        Optional<Connection> open = open();
        if (open.isPresent()) {
            return JdbcClaimTransaction.joining(store, open.get());
        }
        return application != null ? JdbcClaimTransaction.beginningIn(store, application)
                : JdbcClaimTransaction.beginning(store, dataSource);
    }

    /** The transaction open on this thread: the one bound by {@link JdbcTransactions}, else the application's. */
    private Optional<Connection> open() {
        Connection bound = JdbcTransactions.bound();
        if (bound != null) {
            return Optional.of(bound);
        }
        if (application == null) {
            return Optional.empty();
        }
        try {
            return application.current();
        } catch (RuntimeException e) {
            throw store.connections().failure("find the application's transaction", "", e);
        }
    }
}
