package dev.idem.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.store.KeyScopes;
import dev.idem.store.StoreCircuit;
import jakarta.annotation.Nullable;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * How the store borrows a connection for each operation: only while it is open and its {@link StoreCircuit} admits
 * the operation, only a connection that holds no one's transaction ({@link #requireOwn}), in auto-commit mode for the
 * operation and as it came afterwards; and what an operation that failed throws, naming the operation and the key's
 * scope. Closing it closes the store's own pool, if it has one.
 */
final class StoreConnections {
    private final DataSource dataSource;
    @Nullable
    private final HikariDataSource ownedPool;
    private final String table;
    /**
     * Whether the data source's connections start in manual-commit mode, as the store's builder declared
     * ({@link JdbcIdempotencyStore.Builder#manualCommitConnections}); otherwise one handed out so is refused.
     */
    private final boolean manualCommitConnections;
    /** Refuses operations at once while the database is unreachable; see {@link #run}. */
    private final StoreCircuit circuit;
    private volatile boolean closed;

    /**
     * @param ownedPool the store's own pool, which {@code dataSource} is, or null when the caller owns the data source
     */
    StoreConnections(DataSource dataSource, @Nullable HikariDataSource ownedPool, String table,
                     boolean manualCommitConnections) {
        this.dataSource = dataSource;
        this.ownedPool = ownedPool;
        this.table = table;
        this.manualCommitConnections = manualCommitConnections;
        this.circuit = new StoreCircuit("jdbc store", KeyScopes::describe, this::probe);
    }

    /** The circuit's probe: one connection, borrowed, checked and given back, within the pool's connection timeout. */
    private void probe() {
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid((int) Math.max(1, JdbcIdempotencyStore.CONNECTION_TIMEOUT_MILLIS / 1000))) {
                throw new IdempotencyStoreUnreachableException("jdbc store: still unreachable: the database gave a"
                        + " connection that does not answer", null);
            }
        } catch (SQLException e) {
            throw new IdempotencyStoreUnreachableException("jdbc store: still unreachable: " + e.getMessage(), e);
        }
    }

    /** Refuses work once the store is closed. */
    void requireOpen(String operation, String key) {
        if (closed) {
            throw new IdempotencyStoreException("jdbc store: " + operation + " of " + KeyScopes.describe(key)
                    + " refused: the store is closed");
        }
    }

    /** Whether {@link #close} ran. */
    boolean closed() {
        return closed;
    }

    /** Refuses every operation from now on, and closes the store's own pool. */
    void close() {
        closed = true;
        circuit.close();
        if (ownedPool != null) {
            ownedPool.close();
        }
    }

    /** One operation's statements on a borrowed connection. */
    @FunctionalInterface
    interface Work<T> {
        T apply(Connection c) throws SQLException;
    }

    /**
     * Runs one operation on a borrowed connection. A lost connection fails the operation (closed) and the next call
     * reconnects: the pool retires the connection that failed, and when the store owns the pool the connections idle
     * beside it are retired too, since what drops one connection (a server restart, a failover, a network cut) has
     * almost always dropped them all, and the pool would otherwise hand them out, one failed call each.
     *
     * <p>When no connection can be had because the database is unreachable, the {@link StoreCircuit} opens: every
     * operation after it is refused at once, and the database is probed with one connection at a time in the
     * background until it answers. A statement that fails on a connection that broke does not open it (the next
     * connection may well work).
     */
    @SuppressWarnings("try") // the scope is held for its effect: auto-commit mode, put back as it came
    <T> T run(String operation, String key, Work<T> work) {
        requireOpen(operation, key);
        Connection c = connection(operation, key);
        try (c; AutoCommitScope own = AutoCommitScope.on(requireOwn(c, operation, key))) { // each statement alone
            return work.apply(c);
        } catch (SQLException | RuntimeException e) {
            if (ownedPool != null && SqlErrors.isConnectionLost(e)) {
                ownedPool.getHikariPoolMXBean().softEvictConnections();
            }
            throw failure(operation, key, e);
        }
    }

    /**
     * Returns {@code c}, a connection the data source handed out, unless it may hold a transaction that is not the
     * store's: one in manual-commit mode, unless the builder declared that the data source's connections start so
     * ({@link JdbcIdempotencyStore.Builder#manualCommitConnections}). A transaction-aware data source (Spring's
     * {@code TransactionAwareDataSourceProxy}) hands out the application's transaction in manual-commit mode;
     * switching it to auto-commit mode, or committing it, would commit the application's work half-way and break its
     * transaction, so the store refuses it, changing nothing. The caller closes {@code c} (its handle only: a
     * transaction-aware data source's close leaves the transaction open).
     *
     * @throws IdempotencyStoreException naming the operation and the key's scope, and what to do instead
     */
    Connection requireOwn(Connection c, String operation, String key) throws SQLException {
        if (manualCommitConnections || c.getAutoCommit()) {
            return c;
        }
        String scope = KeyScopes.describe(key);
        throw new IdempotencyStoreException("jdbc store: " + operation + " of " + scope + " refused: the"
                + " data source handed out a connection with auto-commit off, which holds a transaction that is not"
                + " the store's (a transaction-aware data source such as Spring's TransactionAwareDataSourceProxy"
                + " hands out the application's transaction so). The store never commits or changes a connection"
                + " that may hold someone's transaction: give it a data source of its own connections (the pool"
                + " itself, or idem.jdbc.url); for a pool whose idle connections start in manual-commit mode, say so"
                + " with JdbcIdempotencyStore.Builder.manualCommitConnections(); to claim inside the application's"
                + " transaction, declare storeTransaction and bind that transaction with JdbcTransactions.join");
    }

    /**
     * A connection of the data source for one operation (or one transaction of the store's own), unless the circuit
     * is open; one that cannot be had for an outage opens it.
     */
    Connection connection(String operation, String key) {
        circuit.admit(operation, key);
        try {
            return dataSource.getConnection();
        } catch (SQLException | RuntimeException e) {
            if (!SqlErrors.isConnectionLost(e) && !ownPoolCouldNotConnect(e)) {
                throw failure(operation, key, e);
            }
            circuit.open(e);
            throw new IdempotencyStoreUnreachableException("jdbc store: " + operation + " of " + KeyScopes.describe(key)
                    + " failed on table " + table + ": no connection to the database: " + e.getMessage(), e);
        }
    }

    /**
     * Whether the store's own pool gave up waiting for a connection although it had room to open one: it could not
     * (a silent database fails no attempt before the wait ends, so the pool's error may carry no cause). A pool that
     * is full of busy connections is not unreachable, only busy.
     */
    private boolean ownPoolCouldNotConnect(Throwable e) {
        return ownedPool != null && e instanceof SQLTransientConnectionException
                && ownedPool.getHikariPoolMXBean() != null
                && ownedPool.getHikariPoolMXBean().getActiveConnections() < ownedPool.getMaximumPoolSize();
    }

    /** What an operation that failed on the database throws: it names the operation and the key's scope. */
    IdempotencyStoreException failure(String operation, String key, Exception e) {
        if (e instanceof IdempotencyStoreException ise) {
            return ise;
        }
        String message = "jdbc store: " + operation + " of " + KeyScopes.describe(key) + " failed on table " + table
                + ": " + e.getMessage();
        return SqlErrors.isConnectionLost(e) ? new IdempotencyStoreUnreachableException(message, e)
                : new IdempotencyStoreException(message, e);
    }
}
