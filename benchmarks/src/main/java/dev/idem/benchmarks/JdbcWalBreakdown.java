package dev.idem.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Where a fresh call's WAL goes, Idem's beside the baseline's: on tables prepared as for a trial
 * ({@link JdbcStoreBenchmarks.Database#prepare}: autovacuum off, a checkpoint last), {@code calls} fresh calls of one
 * kind on one thread, then a checkpoint, then as many of the other, each kind's WAL between two insert positions;
 * then, where this machine can read the server's {@code pg_wal} directory, {@code pg_waldump --stats=record} of each
 * range, which splits the bytes by kind of record (heap insert, index insert, update, commit, sequence, full-page
 * images).
 *
 * <pre>
 * IDEM_BENCH_POSTGRES_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \
 *     java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.JdbcWalBreakdown [calls (10000)] [pg_wal dir]
 * </pre>
 *
 * The {@code pg_wal} directory is the server's ({@code data_directory}) unless given; {@code pg_waldump} is Debian's
 * for the server's major version where it is installed, else the one on the path.
 */
public final class JdbcWalBreakdown {
    private JdbcWalBreakdown() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        try (HikariDataSource pool = JdbcStoreBenchmarks.pool(2)) { // one for the calls, one to read the WAL position
            JdbcStoreBenchmarks.Shape shape = JdbcStoreBenchmarks.Database.prepare(pool, suffix);
            String table = JdbcStoreBenchmarks.Database.idemTable(suffix);
            String baseline = JdbcStoreBenchmarks.Database.baselineTable(suffix);
            JdbcStoreBenchmarks.Orders orders = new JdbcStoreBenchmarks.Orders();
            JdbcStoreBenchmarks.Keys keys = new JdbcStoreBenchmarks.Keys();
            keys.prefix = "wal-" + UUID.randomUUID() + "-";
            keys.hex = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            try (IdemEngine engine = JdbcStoreBenchmarks.Engine.engine(table, pool, Clock.systemUTC());
                 Connection admin = pool.getConnection()) {
                Path walDir = Path.of(args.length > 1 ? args[1] : setting(admin, "data_directory") + "/pg_wal");
                Path debian = Path.of("/usr/lib/postgresql",
                        Integer.toString(Integer.parseInt(setting(admin, "server_version_num")) / 10_000), "bin",
                        "pg_waldump");
                String waldump = Files.isExecutable(debian) ? debian.toString() : "pg_waldump";
                Idem.install(engine);
                String[] idem = range(admin, () -> {
                    for (int i = 0; i < calls; i++) {
                        orders.place(keys.fresh());
                    }
                });
                PgActivity.checkpoint(admin);
                String[] bare = range(admin, () -> {
                    for (int i = 0; i < calls; i++) {
                        JdbcStoreBenchmarks.baselineFresh(pool, baseline, shape, keys.shaped(shape));
                    }
                });
                report("idemFresh", idem, calls, admin, walDir, waldump);
                report("baselineFresh", bare, calls, admin, walDir, waldump);
                try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT relname,"
                        + " n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ('" + table + "', '"
                        + baseline + "')")) {
                    while (rs.next()) {
                        System.out.printf(Locale.ROOT, "%s: %d updates, %d of them HOT (counts may lag a second)%n",
                                rs.getString(1), rs.getLong(2), rs.getLong(3));
                    }
                }
            } finally {
                JdbcStoreBenchmarks.Database.drop(pool, suffix);
            }
        }
    }

    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    /** The WAL insert positions before and after {@code work}. */
    private static String[] range(Connection c, Work work) throws Exception {
        String start = PgActivity.read(c).walPosition();
        work.run();
        return new String[] {start, PgActivity.read(c).walPosition()};
    }

    private static String setting(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void report(String name, String[] range, int calls, Connection c, Path walDir, String waldump)
            throws SQLException, IOException, InterruptedException {
        long bytes = PgActivity.walBytes(c, range[0], range[1]);
        System.out.printf(Locale.ROOT, "%s: %d calls, %d WAL bytes, %.0f per call (%s .. %s)%n", name, calls, bytes,
                (double) bytes / calls, range[0], range[1]);
        if (!Files.isDirectory(walDir)) {
            System.out.println("  (no " + walDir + " here: no breakdown)");
            return;
        }
        Process dump = new ProcessBuilder(List.of(waldump, "--stats=record", "-p", walDir.toString(),
                "-s", range[0], "-e", range[1])).redirectErrorStream(true).start();
        String out = new String(dump.getInputStream().readAllBytes());
        dump.waitFor();
        out.lines().forEach(l -> System.out.println("  " + l));
    }
}
