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
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
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
 * <p>{@link #main} counts the statements (round trips) per call of each kind with a {@link CountingDataSource}.
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

    /**
     * Counts the statements per call of each kind, over {@code calls} calls (10,000 unless given), and prints them
     * with the server's and the client's CPU per call. {@link JdbcReport} runs the same count and writes it to
     * docs/benchmarks.md.
     *
     * @param args optionally the number of calls
     */
    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        for (Map.Entry<String, Cost> count : countStatements(calls).entrySet()) {
            Cost cost = count.getValue();
            System.out.printf(Locale.ROOT, "%-62s %.3f statements, CPU per call: server %.0f us (user %.0f),"
                            + " client %.0f us (user %.0f), calling thread %.0f us (user %.0f) (over %d calls)%n",
                    count.getKey(), cost.statements(), cost.serverMicros(), cost.serverUserMicros(),
                    cost.clientMicros(), cost.clientUserMicros(), cost.threadMicros(), cost.threadUserMicros(), calls);
        }
    }

    /** What {@link #countStatements} counts, in its order. */
    static final String FRESH = "fresh call (claim + run + complete)";
    static final String REPLAY_HELD = "replay of a key this JVM holds";
    static final String REPLAY_FROM_STORE = "replay of a key this JVM does not hold";
    static final String BASELINE_FRESH = "baseline fresh (INSERT ... ON CONFLICT DO NOTHING + UPDATE)";
    static final String BASELINE_REPLAY = "baseline replay (SELECT)";
    /** How many turns {@link #countStatements} takes through the kinds of calls, each a share of the calls. */
    static final int ROUNDS = 10;

    /**
     * What one call costs, CPU in microseconds: statements (round trips); the CPU time the server's backend spent on
     * them, user + system and user only (NaN when the server's process cannot be read, as when it runs on another
     * machine); the CPU time of the whole client JVM (every thread: the caller, the pool's, the garbage collector's,
     * the compiler's), user + system and user only (NaN where {@code /proc/self/stat} is not readable); and the
     * calling thread's alone, user + system and user only. User time is what the code itself runs; system time is
     * mostly the sockets' (a round trip's send and receive), alike for two calls of as many round trips.
     */
    record Cost(double statements, double serverMicros, double serverUserMicros, double clientMicros,
                double clientUserMicros, double threadMicros, double threadUserMicros) {
        /** Server and client CPU together: what a call costs the machine's cores when both run on it. */
        double totalMicros() {
            return serverMicros + clientMicros;
        }

        /** Server and client user time together: the code's own work, without the sockets' system time. */
        double totalUserMicros() {
            return serverUserMicros + clientUserMicros;
        }
    }

    /**
     * Statements (round trips) and CPU per call of each kind, over {@code calls} calls of each: counted by a
     * {@link CountingDataSource} around a pool of one connection, whose backend's CPU time (user + system, from
     * {@code /proc/<pid>/stat} of a server on this machine, in 10 ms ticks) is read before and after, as is this
     * JVM's process CPU time. After a warm-up of half as many calls, the kinds take turns ({@link #ROUNDS} turns, each a
     * share of the calls), so a change of the machine's load during the count weighs on every kind alike. On tables
     * of their own, dropped at the end.
     */
    static Map<String, Cost> countStatements(int calls) throws Exception {
        Database db = new Database();
        db.open(1);
        HeldEngine held = new HeldEngine();
        StoreEngine fromStore = new StoreEngine();
        try {
            CountingDataSource counting = new CountingDataSource(db.pool);
            BackendCpu cpu = new BackendCpu(db.pool);
            held.install(db, counting, Clock.systemUTC());
            fromStore.install(db, counting, Clock.offset(Clock.systemUTC(), Duration.ofHours(2)));
            Keys keys = new Keys();
            keys.open(db);
            // Each kind with the engine its calls go through (installed once per turn, outside the counted calls).
            Map<String, Kind> kinds = new LinkedHashMap<>();
            kinds.put(FRESH, new Kind(held.engine, () -> held.orders.place(keys.fresh())));
            kinds.put(REPLAY_FROM_STORE, new Kind(fromStore.engine, () -> fromStore.orders.place(keys.replayed())));
            // The held engine holds a replayed key once it replayed it: the warm-up replays each (at least 200 calls).
            kinds.put(REPLAY_HELD, new Kind(held.engine, () -> held.orders.place(keys.replayed())));
            kinds.put(BASELINE_FRESH, new Kind(null,
                    () -> baselineFresh(counting, db.baseline, db.shape, keys.shaped(db.shape))));
            kinds.put(BASELINE_REPLAY, new Kind(null,
                    () -> baselineReplay(counting, db.baseline, db.shape.replayKeys()[keys.replayIndex()])));
            int share = Math.max(1, calls / ROUNDS);
            // A warm-up of half the calls of each kind, in turns, so that the JIT compiler's threads are mostly done
            // before the client's CPU is counted (they count in the process's CPU time).
            for (int round = 0; round < ROUNDS / 2; round++) {
                for (Kind kind : kinds.values()) {
                    kind.measure(counting, cpu, Math.max(REPLAY_KEYS, share));
                }
            }
            Map<String, long[]> totals = new LinkedHashMap<>();
            kinds.keySet().forEach(kind -> totals.put(kind, new long[Kind.MEASURES]));
            for (int round = 0; round < ROUNDS; round++) {
                for (Map.Entry<String, Kind> kind : kinds.entrySet()) {
                    long[] one = kind.getValue().measure(counting, cpu, share);
                    long[] total = totals.get(kind.getKey());
                    for (int i = 0; i < one.length; i++) {
                        total[i] = total[i] < 0 || one[i] < 0 ? -1 : total[i] + one[i];
                    }
                }
            }
            Map<String, Cost> perCall = new LinkedHashMap<>();
            double counted = (double) share * ROUNDS;
            // statements; server µs, user µs; client ns, user µs; thread ns, user ns (-1: unreadable)
            totals.forEach((kind, t) -> perCall.put(kind, new Cost(t[0] / counted, perCall(t[1], 1, counted),
                    perCall(t[2], 1, counted), perCall(t[3], 1_000, counted), perCall(t[4], 1, counted),
                    perCall(t[5], 1_000, counted), perCall(t[6], 1_000, counted))));
            return perCall;
        } finally {
            held.close();
            fromStore.close();
            db.close();
        }
    }

    private static double perCall(long total, double perMicro, double calls) {
        return total < 0 ? Double.NaN : total / perMicro / calls;
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    /** A kind of call, and the engine it goes through (null for the baselines, which use none). */
    private record Kind(IdemEngine engine, Call call) {
        /** How many numbers {@link #measure} returns. */
        static final int MEASURES = 7;

        /**
         * Of {@code calls} calls, with this kind's engine installed first: statements; the server's CPU and its user
         * time (µs, -1 when unreadable); the client's CPU (ns) and its user time (µs, -1 when unreadable); the calling
         * thread's CPU and user time (ns).
         */
        long[] measure(CountingDataSource counting, BackendCpu cpu, int calls) throws Exception {
            if (engine != null) {
                Idem.install(engine);
            }
            long statements = counting.executed();
            long[] server = cpu.micros();
            long[] client = ProcessCpu.SELF.micros();
            long clientCpu = processCpuNanos();
            long thread = THREADS.getCurrentThreadCpuTime();
            long threadUser = THREADS.getCurrentThreadUserTime();
            for (int i = 0; i < calls; i++) {
                call.run();
            }
            long threadUserAfter = THREADS.getCurrentThreadUserTime();
            long threadAfter = THREADS.getCurrentThreadCpuTime();
            long clientCpuAfter = processCpuNanos();
            long[] clientAfter = ProcessCpu.SELF.micros();
            long[] serverAfter = cpu.micros();
            return new long[] {counting.executed() - statements, difference(server, serverAfter, 0),
                    difference(server, serverAfter, 1), clientCpuAfter - clientCpu,
                    difference(client, clientAfter, 1), threadAfter - thread, threadUserAfter - threadUser};
        }

        private static long difference(long[] before, long[] after, int which) {
            return before == null || after == null ? -1 : after[which] - before[which];
        }
    }

    private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** This JVM's CPU time so far, every thread, in nanoseconds. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** A process's CPU time from {@code /proc/<pid>/stat}, where this machine has it. */
    private record ProcessCpu(Path stat) {
        private static final long MICROS_PER_TICK = 10_000; // USER_HZ is 100 on Linux
        static final ProcessCpu SELF = new ProcessCpu(Path.of("/proc/self/stat"));

        /** User + system and user CPU so far, in microseconds (10 ms steps); null when unreadable. */
        long[] micros() {
            try {
                String text = Files.readString(stat);
                String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
                long user = Long.parseLong(fields[11]);
                long system = Long.parseLong(fields[12]);
                return new long[] {(user + system) * MICROS_PER_TICK, user * MICROS_PER_TICK};
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }

    /** The CPU time of the one backend behind a pool of one connection, when its process is readable here. */
    private static final class BackendCpu {
        private final ProcessCpu process;

        BackendCpu(DataSource pool) throws SQLException {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                process = new ProcessCpu(Path.of("/proc", Integer.toString(rs.getInt(1)), "stat"));
            }
        }

        /** User + system and user CPU of the backend so far, in microseconds (10 ms steps); null when unreadable. */
        long[] micros() {
            return process.micros();
        }
    }
}
