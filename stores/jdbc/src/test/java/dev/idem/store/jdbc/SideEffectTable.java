package dev.idem.store.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A table of a test's own where a transactional call writes its side effect, one row per execution. It has no unique
 * key on purpose: a duplicate execution would show as a second row rather than fail.
 */
final class SideEffectTable implements AutoCloseable {
    final String name = "idem_tx_side_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final String url;

    SideEffectTable(String url) throws SQLException {
        this.url = url;
        execute(url, "CREATE TABLE " + name + " (order_id TEXT NOT NULL, note TEXT)");
    }

    /** Writes {@code order}'s side effect on {@code c}, inside whatever transaction {@code c} has open. */
    void insert(Connection c, String order) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + name + " (order_id) VALUES (?)")) {
            ps.setString(1, order);
            ps.executeUpdate();
        }
    }

    /** {@return how many rows the committed state holds for {@code order}} */
    int rows(String order) throws SQLException {
        return count(url, name, "order_id", order);
    }

    @Override
    public void close() throws SQLException {
        execute(url, "DROP TABLE IF EXISTS " + name);
    }

    /** {@return how many committed rows of {@code table} have {@code value} in {@code column}} */
    static int count(String url, String table, String column, String value) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE " + column
                     + " = ?")) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    static void execute(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
