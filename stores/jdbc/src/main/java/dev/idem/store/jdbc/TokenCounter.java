package dev.idem.store.jdbc;

import dev.idem.IdempotencyStoreException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The table's fencing-token counter ({@link Dialect#tokens}), drawn from by a statement of its own: where a claim
 * cannot draw its token inside its own statement (SQLite always; MariaDB and H2 when the read drew none).
 */
final class TokenCounter {
    private final String table;
    private final Dialect dialect;
    private final String draw;

    TokenCounter(String table, Dialect dialect) {
        this.table = table;
        this.dialect = dialect;
        this.draw = dialect.drawToken(table);
    }

    /** The next fencing token. */
    long draw(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(draw); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("the token counter " + Dialect.tokens(table) + " has no row");
            }
            return rs.getLong(1);
        }
    }

    /**
     * Checks at start that the counter is there and works, drawing one token.
     *
     * @throws IdempotencyStoreException naming the counter and the table, and where the DDL that creates it is
     */
    void check(Connection c) {
        try {
            draw(c); // a token drawn and never used: tokens are increasing, not consecutive
        } catch (SQLException e) {
            throw new IdempotencyStoreException("jdbc store: the fencing-token counter " + Dialect.tokens(table)
                    + " of table " + table + " is missing or unusable (" + e.getMessage() + "); create it with the"
                    + " DDL in docs/jdbc-store.md (or the resource " + TableShape.ddlResource(dialect) + "), or set"
                    + " idem.jdbc.createTable=true", e);
        }
    }
}
