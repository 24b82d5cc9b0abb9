package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.KeyScopes;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import jakarta.annotation.Nullable;

import javax.sql.DataSource;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One execution's part of a PostgreSQL transaction: the claim, the completion, and the method's writes between.
 *
 * <p><b>Joined</b> (the application's transaction, or one an enclosing idempotent method began): the part begins
 * with a savepoint. {@link #commit} releases it, leaving the rest to the transaction's owner; {@link #close} without a
 * commit rolls back to it, so the method's failure takes its claim and its writes with it while the application's
 * transaction stays usable (also after a lock timeout, which aborts a PostgreSQL transaction up to the savepoint).
 *
 * <p><b>Begun</b>: a connection of the store's pool at READ COMMITTED, bound to the thread for the method
 * ({@link JdbcTransactions#bindOwn}); {@link #commit} commits it, {@link #close} rolls back what was not committed,
 * unbinds it and returns the connection in the auto-commit mode and isolation it came in. A connection that may hold
 * the application's transaction (from a transaction-aware data source) is refused
 * ({@link StoreConnections#requireOwn}); a joined transaction's connection is never changed but by the savepoint.
 *
 * <p><b>Begun by the application's transaction manager</b> ({@link ApplicationTransactions#begin}): the manager's
 * connection, bound by the manager for the method's writes; {@link #commit} and {@link #close} have the manager
 * commit or roll it back, and the manager returns the connection.
 *
 * <p><b>Waiting.</b> The claim waits on another transaction's lock of the key's row for at most the caller's wait,
 * through {@code lock_timeout} set for the claim alone ({@code set_config(..., true)}, put back afterwards), so the
 * method's own writes keep the lock timeout they had.
 */
final class JdbcClaimTransaction implements TransactionalClaims.Transaction {
    private static final System.Logger LOG = System.getLogger(JdbcClaimTransaction.class.getName());
    /** PostgreSQL's lock_not_available: lock_timeout passed. */
    static final String LOCK_NOT_AVAILABLE = "55P03";

    private final JdbcIdempotencyStore store;
    private final Connection connection;
    @Nullable
    private final Savepoint savepoint;
    @Nullable
    private final JdbcTransactions.Scope binding;
    @Nullable
    private final ApplicationTransactions.Transaction managed;
    /** The isolation and the auto-commit mode a connection of the store's own came in, put back at close. */
    private final int isolation;
    private final boolean autoCommit;
    private String key = "";
    private boolean settled;
    private boolean closed;

    private JdbcClaimTransaction(JdbcIdempotencyStore store, Connection connection, @Nullable Savepoint savepoint,
                                 @Nullable JdbcTransactions.Scope binding,
                                 @Nullable ApplicationTransactions.Transaction managed, int isolation,
                                 boolean autoCommit) {
        this.store = store;
        this.connection = connection;
        this.savepoint = savepoint;
        this.binding = binding;
        this.managed = managed;
        this.isolation = isolation;
        this.autoCommit = autoCommit;
    }

    /** A part of the transaction on {@code bound}, which its owner ends. */
    static JdbcClaimTransaction joining(JdbcIdempotencyStore store, Connection bound) {
        store.connections().requireOpen("join a transaction", "");
        try {
            return new JdbcClaimTransaction(store, bound, bound.setSavepoint(), null, null, -1, false);
        } catch (SQLException e) {
            throw store.connections().failure("join a transaction", "", e);
        }
    }

    /** A transaction of the store's own on a connection of {@code dataSource}, bound to the thread until closed. */
    static JdbcClaimTransaction beginning(JdbcIdempotencyStore store, DataSource dataSource) {
        store.connections().requireOpen("begin a transaction", "");
        Connection c = null;
        try {
            c = store.connections().connection("begin a transaction", "");
            store.connections().requireOwn(c, "begin a transaction", "");
            int isolation = c.getTransactionIsolation();
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                // A waiter's next statement must see what the holder committed; a stricter snapshot would not.
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            return new JdbcClaimTransaction(store, c, null, JdbcTransactions.bindOwn(c), null, isolation,
                    autoCommit);
        } catch (SQLException | RuntimeException e) {
            if (c != null) {
                closeQuietly(c);
            }
            throw store.connections().failure("begin a transaction", "", e);
        }
    }

    /** A transaction the application's manager begins, and ends when the store commits or closes it. */
    static JdbcClaimTransaction beginningIn(JdbcIdempotencyStore store, ApplicationTransactions application) {
        store.connections().requireOpen("begin a transaction", "");
        ApplicationTransactions.Transaction begun;
        try {
            begun = application.begin();
        } catch (RuntimeException e) {
            throw store.connections().failure("begin the application's transaction", "", e);
        }
        return new JdbcClaimTransaction(store, begun.connection(), null, null, begun, -1, false);
    }

    @Override
    public boolean joined() {
        return binding == null && managed == null;
    }

    @Override
    public Optional<ClaimOutcome> claim(ClaimRequest request, Duration lockWait) {
        Objects.requireNonNull(request, "request");
        key = request.key();
        store.connections().requireOpen("transactional claim", key);
        try {
            String previous = setting("SELECT current_setting('lock_timeout')", null);
            // 0 would mean "wait forever" to PostgreSQL: the shortest wait it takes is a millisecond.
            long millis = Math.max(1, Math.min(Integer.MAX_VALUE, lockWait.toMillis()));
            setting("SELECT set_config('lock_timeout', ?, true)", Long.toString(millis));
            ClaimOutcome outcome;
            try {
                outcome = store.claimOn(connection, request, true);
            } catch (SQLException e) {
                if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    return Optional.empty(); // close() rolls back the aborted transaction (or to the savepoint)
                }
                throw e;
            }
            setting("SELECT set_config('lock_timeout', ?, true)", previous);
            return Optional.of(outcome);
        } catch (SQLException e) {
            throw store.connections().failure("transactional claim", key, e);
        }
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(ttl, "ttl");
        store.connections().requireOpen("transactional complete", key);
        try {
            return store.finishOn(connection, RecordState.COMPLETED, key, fencingToken, result.clone(), ttl);
        } catch (SQLException e) {
            throw store.connections().failure("transactional complete", key, e);
        }
    }

    @Override
    public void commit() {
        if (managed != null) {
            try {
                settled = true; // the manager rolls back a commit that fails: nothing is left to roll back here
                managed.commit();
            } catch (RuntimeException e) {
                throw store.connections().failure("commit of the application's transaction (rolled back, or not"
                        + " known to have applied)", key, e);
            }
            return;
        }
        try {
            if (savepoint != null) {
                connection.releaseSavepoint(savepoint);
            } else {
                connection.commit();
            }
            settled = true;
        } catch (SQLException e) {
            throw store.connections().failure(savepoint != null ? "release of the savepoint"
                    : "commit (whether it applied is unknown; it applied whole or not at all)", key, e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        boolean ended = settled;
        try {
            if (!settled) {
                if (managed != null) {
                    managed.rollback();
                } else if (savepoint != null) {
                    connection.rollback(savepoint);
                    connection.releaseSavepoint(savepoint);
                } else {
                    connection.rollback();
                }
                ended = true;
            }
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, "jdbc store: rolling back the transactional call of "
                    + KeyScopes.describe(key) + " failed; " + (savepoint != null
                    ? "the application's transaction must be rolled back" : "the connection is returned unsettled,"
                    + " and the database rolls it back when it closes"), e);
        } finally {
            if (binding != null) {
                binding.close();
                try {
                    if (ended) { // only once ended: switching auto-commit on in an open transaction commits it
                        if (autoCommit) {
                            connection.setAutoCommit(true);
                        }
                        if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                            connection.setTransactionIsolation(isolation);
                        }
                    }
                } catch (SQLException e) {
                    LOG.log(Level.DEBUG, "jdbc store: could not reset a connection before returning it", e);
                } finally {
                    closeQuietly(connection);
                }
            }
        }
    }

    /** Runs a one-value statement (with one text parameter, or none) and returns its value. */
    private String setting(String sql, @Nullable String value) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            if (value != null) {
                ps.setString(1, value);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.log(Level.DEBUG, "jdbc store: closing a connection failed", e);
        }
    }
}
