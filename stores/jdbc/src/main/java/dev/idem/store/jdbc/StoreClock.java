package dev.idem.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * The store's time: the database's now in epoch milliseconds ({@link Dialect#nowMillis}), plus an offset that is
 * zero but in tests, which move the store's time with it. Every statement that reads or stamps a time writes
 * {@link #sql()} and binds {@link #offset()} to its one parameter.
 */
final class StoreClock {
    private final String sql;
    private final LongSupplier offsetMillis;

    StoreClock(Dialect dialect, LongSupplier offsetMillis) {
        this.sql = "(" + dialect.nowMillis + " + ?)";
        this.offsetMillis = offsetMillis;
    }

    /** The store's now as an SQL expression of one parameter, the {@linkplain #offset() offset}. */
    String sql() {
        return sql;
    }

    /** The milliseconds to bind to {@link #sql()}'s parameter. */
    long offset() {
        return offsetMillis.getAsLong();
    }

    /** The store's now, read by a statement of its own on {@code c}. */
    Instant read(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + sql)) {
            ps.setLong(1, offset());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return Instant.ofEpochMilli(rs.getLong(1));
            }
        }
    }
}
