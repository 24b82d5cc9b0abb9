package dev.idem.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A connection of the store's own, borrowed from its data source, in auto-commit mode for the store's statements
 * (each of which stands alone), and put back in the mode it came in when this closes, before the connection goes back
 * to its pool: a pool whose connections start in manual-commit mode gets them back so.
 *
 * <p>Only for a connection that holds no one's transaction: switching auto-commit on commits whatever is pending. The
 * store refuses a connection in manual-commit mode before it gets here ({@link StoreConnections#requireOwn}),
 * unless its builder declared that the data source's connections start so.
 */
final class AutoCommitScope implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AutoCommitScope.class.getName());
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

    /**
     * Puts the connection back in manual-commit mode if it came so. Never throws: the store's statements on it have
     * run (and committed) by now, and failing here would report them as failed. A connection that cannot be put back
     * is aborted instead, so its pool never hands it out in the wrong mode.
     */
    @Override
    public void close() {
        if (!switched) {
            return;
        }
        try {
            connection.setAutoCommit(false);
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, "jdbc store: a connection could not be put back in manual-commit"
                    + " mode (" + e.getMessage() + "); it is aborted so its pool does not hand it out in auto-commit"
                    + " mode", e);
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException abort) {
                LOG.log(System.Logger.Level.WARNING, "jdbc store: aborting that connection failed too", abort);
            }
        }
    }
}
