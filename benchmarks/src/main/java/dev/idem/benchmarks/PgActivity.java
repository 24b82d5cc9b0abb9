package dev.idem.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * What a PostgreSQL server did between two readings, so a report can show whether its trials met the server alike:
 * checkpoints ({@code pg_stat_bgwriter}), WAL bytes (the insert position, {@code pg_current_wal_insert_lsn()}, which
 * counts every record the moment it is written) and full-page images ({@code pg_stat_wal}).
 *
 * <p>Both statistics views lag. The checkpointer wakes a waiting {@code CHECKPOINT} before it publishes its counters,
 * so {@link #checkpoint} waits until the count has moved; and a backend publishes its WAL counters at most once a
 * second while it runs and for certain when it exits, so a reading of {@code pg_stat_wal} is exact only once the
 * connections that wrote are closed ({@link #awaitDisconnected}). Each reading clears the connection's statistics
 * snapshot first, so it never sees the values an earlier statement cached.
 */
final class PgActivity {
    /** The application name of the benchmark's pools, by which {@link #awaitDisconnected} finds their backends. */
    static final String APPLICATION = "idem-bench";

    private PgActivity() {
    }

    /** The counters at one moment: checkpoints so far, the WAL insert position, full-page images so far. */
    record Counters(long checkpoints, String walPosition, long fullPageImages) {
    }

    /** What happened between two readings. */
    record Delta(long checkpoints, long walBytes, long fullPageImages) {
    }

    /** Forces a checkpoint and returns once the checkpoint count shows it (or after 10 s). */
    static void checkpoint(Connection c) throws SQLException {
        long before = checkpoints(c);
        try (Statement s = c.createStatement()) {
            s.execute("CHECKPOINT");
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (checkpoints(c) <= before && System.nanoTime() < deadline) {
            pause();
        }
    }

    static Counters read(Connection c) throws SQLException {
        clearSnapshot(c);
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter),"
                     + " pg_current_wal_insert_lsn()::text, (SELECT wal_fpi FROM pg_stat_wal)")) {
            rs.next();
            return new Counters(rs.getLong(1), rs.getString(2), rs.getLong(3));
        }
    }

    static Delta since(Connection c, Counters before) throws SQLException {
        Counters after = read(c);
        return new Delta(after.checkpoints() - before.checkpoints(),
                walBytes(c, before.walPosition(), after.walPosition()),
                after.fullPageImages() - before.fullPageImages());
    }

    /** The WAL bytes between two insert positions ({@link Counters#walPosition()}). */
    static long walBytes(Connection c, String from, String to) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_wal_lsn_diff(?::pg_lsn, ?::pg_lsn)::bigint")) {
            ps.setString(1, to);
            ps.setString(2, from);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Waits (at most 30 s) until no backend of a benchmark pool ({@link #APPLICATION}) is connected: a backend
     * publishes its statistics before it leaves {@code pg_stat_activity}, so after this they are all counted.
     */
    static void awaitDisconnected(Connection c) throws SQLException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                + " WHERE application_name = ? AND pid <> pg_backend_pid()")) {
            ps.setString(1, APPLICATION);
            while (System.nanoTime() < deadline) {
                clearSnapshot(c);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
                pause();
            }
        }
    }

    private static long checkpoints(Connection c) throws SQLException {
        clearSnapshot(c);
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void clearSnapshot(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_clear_snapshot()");
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the server's statistics", e);
        }
    }
}
