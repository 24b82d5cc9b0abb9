package dev.idem.benchmarks;

import dev.idem.benchmarks.JdbcStoreBenchmarks.Database;
import dev.idem.benchmarks.JdbcStoreBenchmarks.HeldEngine;
import dev.idem.benchmarks.JdbcStoreBenchmarks.Keys;
import dev.idem.benchmarks.JdbcStoreBenchmarks.StoreEngine;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;

import javax.sql.DataSource;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import static dev.idem.benchmarks.JdbcStoreBenchmarks.REPLAY_KEYS;
import static dev.idem.benchmarks.JdbcStoreBenchmarks.baselineFresh;
import static dev.idem.benchmarks.JdbcStoreBenchmarks.baselineReplay;

/**
 * What each kind of call of {@link JdbcStoreBenchmarks} costs, apart from its throughput: statements (round trips)
 * counted by a {@link CountingDataSource}, and the CPU time of the server's backend, of this JVM and of the calling
 * thread, per call. Through the benchmarks' own states (tables, engines, keys) and baselines, on one connection.
 */
public final class JdbcCallCosts {
    private JdbcCallCosts() {
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
     * JVM's process CPU time. After a warm-up of half as many calls, the kinds take turns ({@link #ROUNDS} turns,
     * each a share of the calls), so a change of the machine's load during the count weighs on every kind alike. On
     * tables of their own, dropped at the end.
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
