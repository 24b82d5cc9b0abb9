package dev.idem.store.jdbc;

import java.sql.SQLException;

/** What the store reads from the SQLSTATEs and vendor codes of the databases it supports. */
final class SqlErrors {
    private SqlErrors() {
    }

    /** An error of the connection rather than of the statement: SQLSTATE class 08, or the server shutting down. */
    static boolean isConnectionLost(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
                return true;
            }
        }
        return false;
    }

    /** A statement rolled back as a deadlock's victim: SQLSTATE 40001 (MariaDB's ER_LOCK_DEADLOCK, H2's). */
    static boolean isDeadlock(SQLException e) {
        return "40001".equals(e.getSQLState()) || e.getErrorCode() == 1213;
    }

    /** A unique violation of the key's row (a concurrent first claim), and no other constraint's. */
    static boolean isDuplicateKey(SQLException e) {
        String state = e.getSQLState();
        return "23505".equals(state) // PostgreSQL, H2
                || e.getErrorCode() == 1062 // MariaDB, MySQL: ER_DUP_ENTRY
                || e.getErrorCode() == 1555 || e.getErrorCode() == 2067; // SQLite: primary key, unique
    }

    /**
     * A {@code CREATE ... IF NOT EXISTS} that lost a race with the same statement of another connection: PostgreSQL
     * checks for the name and then inserts into its catalog, so of two creators at once one may fail on the
     * catalog's unique index (23505) or find the object just made (42P07 duplicate table, 42710 duplicate object).
     * The object exists afterwards either way.
     */
    static boolean isCreatedConcurrently(SQLException e) {
        String state = e.getSQLState();
        return "23505".equals(state) || "42P07".equals(state) || "42710".equals(state);
    }
}
