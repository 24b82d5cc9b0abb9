package dev.idem.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A connection of the store's own, borrowed from its data source, in auto-commit mode for the store's statements
 * (each of which stands alone), and put back in the mode it came in when this closes, before the connection goes back
 * to its pool: a pool whose connections start in manual-commit mode gets them back so.
 *
 * <p>Only for a connection that holds no one's transaction: switching auto-commit on commits whatever is pending. The
 * store refuses a connection that may hold the application's transaction before it gets here
 * ({@link JdbcIdempotencyStore#requireOwn}).
 */
final class AutoCommitScope implements AutoCloseable {
    private final Connection connection;
    private final boolean switched;

    private AutoCommitScope(Connection connection, boolean switched) {
        this.connection = connection;
        this.switched = switched;
    }

    /** Switches {@code connection} to auto-commit mode if it is not; {@link #close} switches it back. */
    static AutoCommitScope on(Connection connection) throws SQLException {
        boolean manual = !connection.getAutoCommit();
        if (manual) {
            connection.setAutoCommit(true);
        }
        return new AutoCommitScope(connection, manual);
    }

    /** {@return whether the connection came in manual-commit mode (and is switched back when this closes)} */
    boolean cameInManualCommit() {
        return switched;
    }

    @Override
    public void close() throws SQLException {
        if (switched) {
            connection.setAutoCommit(false);
        }
    }
}
