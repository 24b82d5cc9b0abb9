package dev.idem.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.WeavingCheck;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The jdbc store on PostgreSQL through {@code @Idempotent}, beside a baseline through the same pool in the same run.
 * Run at 1, 8 and 32 threads ({@code -t}); PostgreSQL at {@code IDEM_BENCH_POSTGRES_URL}, else
 * {@code IDEM_TEST_POSTGRES_URL}.
 *
 * <ul>
 *   <li>{@code idemFresh}: a new key every call: claim, run, complete (two statements).
 *   <li>{@code baselineFresh}: the least a fresh call could do with the same row shape: a bare
 *       {@code INSERT ... ON CONFLICT DO NOTHING} and an {@code UPDATE} of that row, each on a connection borrowed
 *       from the pool as the store borrows one per operation. Its values have the lengths of Idem's ({@link Shape}),
 *       so both write rows, index entries and log records of the same sizes.
 *   <li>{@code idemReplayFromStore}: a completed key this JVM does not hold, so the replay is one claim statement
 *       answered with the stored record. The engine's clock runs two hours ahead of the database (whose clock the
 *       store uses) and it sees the store {@linkplain StoreWithoutItsTime without its time}, so the results the
 *       engine keeps locally never count and every replay goes to the store.
 *   <li>{@code baselineReplay}: a bare {@code SELECT} of the row by its key hash.
 *   <li>{@code idemReplayHeld}: a completed key this JVM holds: no statement at all.
 * </ul>
 *
 * <p>{@link JdbcCallCosts} counts the statements (round trips) and the CPU per call of each kind.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class JdbcStoreBenchmarks {
    static final int REPLAY_KEYS = 200;

    /** The woven method: its body is trivial, so the store's round trips are what is measured. */
    public static class Orders {
        @Idempotent(scope = "bench:jdbc-order", ttl = "1h")
        public String place(@IdempotencyKey String orderId) {
            return "placed";
        }
    }

    /**
     * What the rows of Idem's table hold in this benchmark, so that the baseline writes rows of the same lengths: the
     * key's text up to its hash and the hash's length (Idem's keys are {@code idem:<namespace>:<scope>:<hash>}), the
     * payload hash, the owner and the encoded result (the codec's header and body), read from the replayed keys'
     * rows; and those keys, which the baseline's table holds too.
     */
    record Shape(String keyPrefix, int hashLength, String payloadHash, String owner, byte[] result,
                 String[] replayKeys) {
        static Shape read(DataSource pool, String table) throws SQLException {
            try (Connection c = pool.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT idem_key, payload_hash, owner, result FROM "
                         + table + " WHERE state = 'COMPLETED' ORDER BY idem_key");
                 ResultSet rs = ps.executeQuery()) {
                String[] keys = new String[REPLAY_KEYS];
                String payload = null;
                String owner = null;
                byte[] result = null;
                int n = 0;
                while (rs.next() && n < REPLAY_KEYS) {
                    keys[n++] = rs.getString(1);
                    payload = rs.getString(2);
                    owner = rs.getString(3);
                    result = rs.getBytes(4);
                }
                if (n < REPLAY_KEYS) {
                    throw new IllegalStateException(table + " holds " + n + " completed keys, not " + REPLAY_KEYS);
                }
                int colon = keys[0].lastIndexOf(':') + 1;
                return new Shape(keys[0].substring(0, colon), keys[0].length() - colon, payload, owner, result, keys);
            }
        }
    }

    /** The pool, shared by Idem's store and the baseline, and the tables. */
    @State(Scope.Benchmark)
    public static class Database {
        /**
         * The suffix of tables a caller prepared ({@link #prepare}) and drops itself, as {@link JdbcReport} does to
         * read the server's activity around a trial; unset, each trial prepares tables of its own and drops them.
         */
        static final String TABLES = "idem.bench.tables";
        HikariDataSource pool;
        String table;
        String baseline;
        Shape shape;
        private boolean given;
        final AtomicLong threads = new AtomicLong();

        @Setup(Level.Trial)
        public void open() throws SQLException {
            open(32);
        }

        void open(int poolSize) throws SQLException {
            pool = pool(poolSize);
            String suffix = System.getProperty(TABLES);
            given = suffix != null;
            if (!given) {
                suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
            }
            table = idemTable(suffix);
            baseline = baselineTable(suffix);
            shape = given ? Shape.read(pool, table) : prepare(pool, suffix);
        }

        static String idemTable(String suffix) {
            return "idem_bench_" + suffix;
        }

        static String baselineTable(String suffix) {
            return "idem_bench_base_" + suffix;
        }

        /**
         * Makes a trial's two tables, alike: both from the store's own DDL, autovacuum off for each (so no vacuum
         * starts in one trial and not in another), the replayed keys completed through {@code @Idempotent} in Idem's
         * table and their rows copied to the baseline's; then a checkpoint, so that every trial starts with no dirty
         * page and pays the first change of each page after a checkpoint (a full-page image in the WAL) alike.
         *
         * @return the shape of Idem's rows, for the baseline's
         */
        static Shape prepare(DataSource pool, String suffix) throws SQLException {
            String table = idemTable(suffix);
            String baseline = baselineTable(suffix);
            for (String t : new String[] {table, baseline}) {
                JdbcIdempotencyStore.builder(pool).table(t).createTable(true).build().close();
            }
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                for (String t : new String[] {table, baseline}) {
                    s.execute("ALTER TABLE " + t + " SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)");
                }
            }
            // The replayed keys are completed by an engine of their own, so the measured engines know them only
            // from the store (the results an engine ran itself it keeps by its own clock).
            WeavingCheck.requireWoven(Orders.class);
            Orders orders = new Orders();
            try (IdemEngine completing = Engine.engine(table, pool, Clock.systemUTC())) {
                Idem.install(completing);
                for (int i = 0; i < REPLAY_KEYS; i++) {
                    orders.place("replayed-" + i);
                }
            }
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO " + baseline + " SELECT * FROM " + table);
                PgActivity.checkpoint(c);
            }
            return Shape.read(pool, table);
        }

        /** Drops a trial's tables and their token counters. */
        static void drop(DataSource pool, String suffix) throws SQLException {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                for (String t : new String[] {idemTable(suffix), baselineTable(suffix)}) {
                    s.execute("DROP TABLE IF EXISTS " + t);
                    s.execute("DROP SEQUENCE IF EXISTS " + t + "_tokens");
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            try {
                if (!given) {
                    drop(pool, table.substring(idemTable("").length()));
                }
            } finally {
                pool.close();
            }
        }
    }

    /** An engine over the jdbc store, installed for the benchmark that uses it. */
    @State(Scope.Benchmark)
    public static class Engine {
        final Orders orders = new Orders();
        IdemEngine engine;

        /**
         * Installs this state's engine (the replayed keys were completed when the tables were prepared). An engine
         * installed before stays open: its owner closes it (so {@link #countStatements} can switch between two
         * engines).
         */
        void install(Database db, DataSource dataSource, Clock clock) {
            WeavingCheck.requireWoven(Orders.class);
            engine = engine(db.table, dataSource, clock);
            Idem.install(engine);
        }

        /**
         * An engine over a jdbc store on {@code dataSource}; a clock other than the JVM's sees the store
         * {@linkplain StoreWithoutItsTime without its time}, so that the results it keeps count by that clock.
         */
        static IdemEngine engine(String table, DataSource dataSource, Clock clock) {
            IdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).table(table).build();
            if (!clock.equals(Clock.systemUTC())) {
                store = new StoreWithoutItsTime(store);
            }
            return IdemEngine.create(IdemSettings.custom().namespace("bench").defaultCodec("java").clock(clock)
                    .store("jdbc", store).defaultStore("jdbc").build());
        }

        @TearDown(Level.Trial)
        public void close() {
            if (engine != null) {
                engine.close();
            }
        }
    }

    /** The engine with the system clock: completed keys it has seen are replayed from its own results. */
    @State(Scope.Benchmark)
    public static class HeldEngine extends Engine {
        @Setup(Level.Trial)
        public void open(Database db) {
            install(db, db.pool, Clock.systemUTC());
        }
    }

    /** The engine whose clock runs two hours ahead: its own results never count, every replay reads the store. */
    @State(Scope.Benchmark)
    public static class StoreEngine extends Engine {
        @Setup(Level.Trial)
        public void open(Database db) {
            install(db, db.pool, Clock.offset(Clock.systemUTC(), Duration.ofHours(2)));
        }
    }

    /** Per thread: a prefix making its fresh keys unique, and a counter. */
    @State(Scope.Thread)
    public static class Keys {
        String prefix;
        /** 16 hex digits unique to the thread, the start of the hash part of its baseline keys. */
        String hex;
        long next;

        @Setup(Level.Trial)
        public void open(Database db) {
            prefix = "t" + db.threads.incrementAndGet() + "-" + UUID.randomUUID() + "-";
            hex = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        }

        /** A new argument of the woven method. */
        String fresh() {
            return prefix + next++;
        }

        /**
         * A new key for the baseline, as long as Idem's keys: Idem's prefix, then this thread's digits and the
         * counter's, zero-padded to the length of Idem's hash part.
         */
        String shaped(Shape shape) {
            String n = Long.toHexString(next++);
            StringBuilder key = new StringBuilder(shape.keyPrefix().length() + shape.hashLength())
                    .append(shape.keyPrefix()).append(hex);
            for (int i = hex.length() + n.length(); i < shape.hashLength(); i++) {
                key.append('0');
            }
            return key.append(n).toString();
        }

        /** The argument of a replayed call. */
        String replayed() {
            return "replayed-" + replayIndex();
        }

        /** Which replayed key comes next. */
        int replayIndex() {
            return (int) (next++ % REPLAY_KEYS);
        }
    }

    @Benchmark
    public String idemFresh(HeldEngine engine, Keys keys) {
        return engine.orders.place(keys.fresh());
    }

    @Benchmark
    public String idemReplayFromStore(StoreEngine engine, Keys keys) {
        return engine.orders.place(keys.replayed());
    }

    @Benchmark
    public String idemReplayHeld(HeldEngine engine, Keys keys) {
        return engine.orders.place(keys.replayed());
    }

    @Benchmark
    public int baselineFresh(Database db, Keys keys) throws SQLException {
        return baselineFresh(db.pool, db.baseline, db.shape, keys.shaped(db.shape));
    }

    @Benchmark
    public int baselineReplay(Database db, Keys keys) throws SQLException {
        return baselineReplay(db.pool, db.baseline, db.shape.replayKeys()[keys.replayIndex()]);
    }

    /**
     * INSERT ... ON CONFLICT DO NOTHING, then UPDATE of the same row: each a statement on a borrowed connection. The
     * values have the lengths of Idem's ({@code shape}), so the rows, their index entries and their log records do.
     */
    static int baselineFresh(DataSource pool, String table, Shape shape, String key) throws SQLException {
        byte[] hash = sha256(key);
        long now = System.currentTimeMillis();
        int n;
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (key_hash, idem_key, state,"
                     + " payload_hash, owner, fencing_token, started_at, lease_until) VALUES (?, ?, 'IN_PROGRESS',"
                     + " ?, ?, 1, ?, ?) ON CONFLICT (key_hash) DO NOTHING")) {
            ps.setBytes(1, hash);
            ps.setString(2, key);
            ps.setString(3, shape.payloadHash());
            ps.setString(4, shape.owner());
            ps.setLong(5, now);
            ps.setLong(6, now + 30_000);
            n = ps.executeUpdate();
        }
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET state = 'COMPLETED',"
                     + " completed_at = ?, expires_at = ?, result = ? WHERE key_hash = ? AND fencing_token = ?"
                     + " AND state = 'IN_PROGRESS'")) {
            ps.setLong(1, now);
            ps.setLong(2, now + 3_600_000);
            ps.setBytes(3, shape.result());
            ps.setBytes(4, hash);
            ps.setLong(5, 1);
            return n + ps.executeUpdate();
        }
    }

    /** One SELECT of the row by its key hash. */
    static int baselineReplay(DataSource pool, String table, String key) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT idem_key, state, payload_hash, owner, fencing_token,"
                     + " started_at, lease_until, completed_at, expires_at, result FROM " + table
                     + " WHERE key_hash = ?")) {
            ps.setBytes(1, sha256(key));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("the baseline has no row for " + key);
                }
                return rs.getBytes("result").length;
            }
        }
    }

    /** SHA-256 of the key's UTF-8 bytes, as the store hashes (a clone of one digest, as the store's). */
    private static byte[] sha256(String key) {
        try {
            return ((MessageDigest) SHA_256.clone()).digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final MessageDigest SHA_256;

    static {
        try {
            SHA_256 = MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The PostgreSQL to run against: {@code IDEM_BENCH_POSTGRES_URL}, else {@code IDEM_TEST_POSTGRES_URL}. */
    static String url() {
        String url = System.getenv("IDEM_BENCH_POSTGRES_URL");
        if (url == null || url.isBlank()) {
            url = System.getenv("IDEM_TEST_POSTGRES_URL");
        }
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("set IDEM_BENCH_POSTGRES_URL (or IDEM_TEST_POSTGRES_URL) to a PostgreSQL"
                    + " JDBC URL, such as jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        }
        return url;
    }

    static HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("idem-bench");
        // PgActivity finds the pool's backends by this name.
        config.addDataSourceProperty("ApplicationName", PgActivity.APPLICATION);
        return new HikariDataSource(config);
    }
}
