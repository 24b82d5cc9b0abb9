package dev.idem.benchmarks;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs {@link JdbcStoreBenchmarks} at 1, 8 and 32 threads against the PostgreSQL at {@code IDEM_BENCH_POSTGRES_URL}
 * (else {@code IDEM_TEST_POSTGRES_URL}), with allocation per call ({@code -prof gc}), counts the round trips of each
 * kind of call and their CPU, server and client ({@link CountingDataSource}, 10,000 calls each), and writes the "JDBC store on PostgreSQL" section of
 * {@code docs/benchmarks.md} (between its markers; appended when absent). The rest of the file is kept, and
 * benchmarks/run.sh keeps this section ({@link Report#KEPT_SECTIONS}).
 *
 * <pre>
 * mvn -q -B -ntp -pl benchmarks -am package -DskipTests
 * IDEM_BENCH_POSTGRES_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \
 *     java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.JdbcReport docs/benchmarks.md
 * </pre>
 *
 * Arguments: {@code docs/benchmarks.md [warm-up iterations (2)] [measured iterations (8)] [seconds each (1)]}. Many
 * short iterations rather than a few long ones: JMH's error is Student's t at 99.9% times the standard error, and t
 * is 31.6 for 3 iterations but 5.4 for 8, so with the same time per benchmark the error bars narrow about sixfold.
 */
public final class JdbcReport {
    static final String START = "<!-- jdbc-benchmarks:start -->";
    static final String END = "<!-- jdbc-benchmarks:end -->";
    private static final int[] THREADS = {1, 8, 32};
    private static final int COUNTED_CALLS = 10_000;

    private JdbcReport() {
    }

    /** One benchmark's throughput (calls per second, all threads) with its error, and its allocation per call. */
    private record Score(double perSecond, double error, double bytesPerCall) {
    }

    public static void main(String[] args) throws Exception {
        Path docs = Path.of(args.length > 0 ? args[0] : "docs/benchmarks.md");
        int warmups = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        String server = serverDescription();
        double loadBefore = loadAverage();
        Map<String, JdbcStoreBenchmarks.Cost> roundTrips = JdbcStoreBenchmarks.countStatements(COUNTED_CALLS);
        Map<Integer, Map<String, Score>> scores = new HashMap<>();
        for (int threads : THREADS) {
            Options options = new OptionsBuilder().include(JdbcStoreBenchmarks.class.getName() + "\\.")
                    .threads(threads).forks(1).warmupIterations(warmups).warmupTime(TimeValue.seconds(seconds))
                    .measurementIterations(iterations).measurementTime(TimeValue.seconds(seconds))
                    .addProfiler(GCProfiler.class).build();
            Map<String, Score> byName = new HashMap<>();
            for (RunResult r : new Runner(options).run()) {
                String name = r.getParams().getBenchmark();
                Result<?> primary = r.getPrimaryResult();
                Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
                byName.put(name.substring(name.lastIndexOf('.') + 1), new Score(primary.getScore(),
                        primary.getScoreError(), alloc == null ? Double.NaN : alloc.getScore()));
            }
            scores.put(threads, byName);
        }
        double loadAfter = loadAverage();
        write(docs, section(scores, roundTrips, server, loadBefore, loadAfter, warmups, iterations, seconds));
        System.out.println("wrote the JDBC section of " + docs);
    }

    private static String section(Map<Integer, Map<String, Score>> scores,
                                  Map<String, JdbcStoreBenchmarks.Cost> roundTrips,
                                  String server, double loadBefore, double loadAfter, int warmups, int iterations,
                                  int seconds) {
        StringBuilder s = new StringBuilder();
        Consumer<String> line = l -> s.append(l).append('\n');
        line.accept(START);
        line.accept("## JDBC store on PostgreSQL");
        line.accept("");
        line.accept("Generated on " + LocalDate.now() + " by `JdbcReport` (" + warmups + " warm-up and " + iterations
                + " measured iterations of " + seconds + " s, one fork, per thread count, with `-prof gc`);"
                + " regenerate with:");
        line.accept("");
        line.accept("```sh");
        line.accept("mvn -q -B -ntp -pl benchmarks -am package -DskipTests");
        line.accept("IDEM_BENCH_POSTGRES_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \\");
        line.accept("    java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.JdbcReport docs/benchmarks.md");
        line.accept("```");
        line.accept("");
        line.accept("Machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + "; " + server
                + " on the same machine, so client and server share the cores. Load average when the run began: "
                + String.format(Locale.ROOT, "%.1f", loadBefore) + ", when it ended: "
                + String.format(Locale.ROOT, "%.1f", loadAfter) + " (work of others on the machine makes every"
                + " throughput here noisy; the round trips are not, and the allocation per call far less so).");
        line.accept("");
        line.accept("Every call is a compile-time-woven `@Idempotent` method with a trivial body"
                + " (`JdbcStoreBenchmarks.Orders#place`) over `JdbcIdempotencyStore` on a HikariCP pool of 32"
                + " connections; the baselines run through the same pool in the same JMH run, on a table made by the"
                + " store's own DDL, each statement on a connection borrowed from the pool as the store borrows one per"
                + " operation:");
        line.accept("");
        line.accept("- `idemFresh`: a new key each call: the claim (one statement), the body, the completion (one"
                + " `UPDATE`).");
        line.accept("- `baselineFresh`, the issue's baseline: the least a fresh call can do with the same row, a bare"
                + " `INSERT ... ON CONFLICT DO NOTHING` and an `UPDATE` of that row.");
        line.accept("- `idemReplayFromStore`: a completed key this JVM does not hold (the engine's clock runs two hours"
                + " ahead of the database's, which the store keeps, and the engine sees the store without the time its"
                + " claims report (`StoreWithoutItsTime`), so the results the engine holds never count): one"
                + " claim statement that reads the row and answers with the stored record.");
        line.accept("- `baselineReplay`: a bare `SELECT` of the row by its key hash, the least any replay can do.");
        line.accept("- `idemReplayHeld`: a completed key this JVM holds: no statement.");
        line.accept("");
        line.accept("Throughput in calls per second, all threads together (score ± JMH's 99.9% error); a ratio is"
                + " Idem's throughput over a baseline's; the goal is >= 0.8 of `baselineFresh` for both the fresh"
                + " call and the replay; below 0.8 is in bold.");
        line.accept("");
        line.accept("| threads | `baselineFresh` | `idemFresh` | fresh / baseline (goal) | `idemReplayFromStore` |"
                + " replay / baseline (goal) | `baselineReplay` | replay / `SELECT` | `idemReplayHeld` |");
        line.accept("|---|---|---|---|---|---|---|---|---|");
        for (int threads : THREADS) {
            Map<String, Score> t = scores.get(threads);
            Score base = t.get("baselineFresh");
            Score fresh = t.get("idemFresh");
            Score replay = t.get("idemReplayFromStore");
            Score select = t.get("baselineReplay");
            line.accept(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s | %s | %.0f |", threads,
                    score(base), score(fresh), ratio(fresh.perSecond / base.perSecond), score(replay),
                    ratio(replay.perSecond / base.perSecond), score(select),
                    ratio(replay.perSecond / select.perSecond), t.get("idemReplayHeld").perSecond));
        }
        line.accept("");
        line.accept("Allocation per call in the benchmark's JVM (`gc.alloc.rate.norm`, bytes, 32 threads, where the"
                + " most calls share the JVM's background allocation): the pool, the driver and, for Idem's calls,"
                + " the engine and the store:");
        line.accept("");
        line.accept("| `baselineFresh` | `idemFresh` | `baselineReplay` | `idemReplayFromStore` | `idemReplayHeld` |");
        line.accept("|---|---|---|---|---|");
        Map<String, Score> most = scores.get(THREADS[THREADS.length - 1]);
        line.accept(String.format(Locale.ROOT, "| %.0f | %.0f | %.0f | %.0f | %.0f |",
                most.get("baselineFresh").bytesPerCall, most.get("idemFresh").bytesPerCall,
                most.get("baselineReplay").bytesPerCall, most.get("idemReplayFromStore").bytesPerCall,
                most.get("idemReplayHeld").bytesPerCall));
        line.accept("");
        line.accept("Round trips and CPU per call, counted over " + String.format(Locale.ROOT, "%,d", COUNTED_CALLS)
                + " calls of each kind through a pool of one connection, after a warm-up of each, the kinds taking"
                + " turns (" + JdbcStoreBenchmarks.ROUNDS + " turns, each a tenth of the calls) so that a change of"
                + " the machine's load weighs on all alike. Round trips are counted by `CountingDataSource` (a wrapper"
                + " of the pool that counts every `execute*` of every statement, each one round trip to the server)."
                + " Server CPU is user + system time of that connection's backend process, read from `/proc` before"
                + " and after each turn (in steps of 10 ms; n/a when the server runs elsewhere); client CPU is the"
                + " benchmark JVM's process CPU time (every thread: the caller's, the pool's, the collector's, the"
                + " compiler's). CPU time is far less sensitive to other work on the machine than throughput, and"
                + " with client and server on the same two cores their sum is what bounds the throughput at 8 and 32"
                + " threads. The replays of a key this JVM holds cycle over 200 keys, each replayed once in the"
                + " warm-up (its first replay reads the store, then the JVM holds the result):");
        line.accept("");
        line.accept("| call | round trips | goal | server CPU per call (µs) | client CPU per call (µs) |"
                + " server + client (µs) |");
        line.accept("|---|---|---|---|---|---|");
        line.accept(trips(roundTrips, JdbcStoreBenchmarks.FRESH, "`idemFresh`", "2"));
        line.accept(trips(roundTrips, JdbcStoreBenchmarks.REPLAY_FROM_STORE, "`idemReplayFromStore`", "1"));
        line.accept(trips(roundTrips, JdbcStoreBenchmarks.REPLAY_HELD, "`idemReplayHeld`", "0"));
        line.accept(trips(roundTrips, JdbcStoreBenchmarks.BASELINE_FRESH, "`baselineFresh`", ""));
        line.accept(trips(roundTrips, JdbcStoreBenchmarks.BASELINE_REPLAY, "`baselineReplay`", ""));
        JdbcStoreBenchmarks.Cost idem = roundTrips.get(JdbcStoreBenchmarks.FRESH);
        JdbcStoreBenchmarks.Cost bare = roundTrips.get(JdbcStoreBenchmarks.BASELINE_FRESH);
        if (!Double.isNaN(idem.totalMicros()) && !Double.isNaN(bare.totalMicros())) {
            line.accept("");
            line.accept(String.format(Locale.ROOT, "Where the two cores are the limit, a fresh call can reach at most"
                    + " the baseline's CPU over its own, **%.2f** of the baseline's throughput (%.0f µs against %.0f"
                    + " µs per call, server and client together); of the difference, %.0f µs is the server's and"
                    + " %.0f µs the client's.", bare.totalMicros() / idem.totalMicros(), idem.totalMicros(),
                    bare.totalMicros(), idem.serverMicros() - bare.serverMicros(),
                    idem.clientMicros() - bare.clientMicros()));
        }
        line.accept("");
        notes(scores, roundTrips).forEach(line);
        line.accept(END);
        return s.toString();
    }

    private static String score(Score s) {
        return String.format(Locale.ROOT, "%.0f ± %.0f", s.perSecond, s.error);
    }

    private static String ratio(double r) {
        return String.format(Locale.ROOT, r >= 0.8 ? "%.2f" : "**%.2f**", r);
    }

    private static String trips(Map<String, JdbcStoreBenchmarks.Cost> costs, String what, String name,
                                String goal) {
        JdbcStoreBenchmarks.Cost cost = costs.get(what);
        return String.format(Locale.ROOT, "| %s | %.2f | %s | %s | %.0f | %s |", name, cost.statements(), goal,
                micros(cost.serverMicros()), cost.clientMicros(), micros(cost.totalMicros()));
    }

    private static String micros(double micros) {
        return Double.isNaN(micros) ? "n/a" : String.format(Locale.ROOT, "%.0f", micros);
    }

    /** Which goals this run met, said from its own numbers, then what the numbers mean and what they do not. */
    private static List<String> notes(Map<Integer, Map<String, Score>> scores,
                                      Map<String, JdbcStoreBenchmarks.Cost> costs) {
        List<String> fresh = new ArrayList<>();
        List<String> replay = new ArrayList<>();
        for (int threads : THREADS) {
            Map<String, Score> t = scores.get(threads);
            double base = t.get("baselineFresh").perSecond;
            if (t.get("idemFresh").perSecond / base >= 0.8) {
                fresh.add(Integer.toString(threads));
            }
            if (t.get("idemReplayFromStore").perSecond / base >= 0.8) {
                replay.add(Integer.toString(threads));
            }
        }
        JdbcStoreBenchmarks.Cost idem = costs.get(JdbcStoreBenchmarks.FRESH);
        JdbcStoreBenchmarks.Cost bare = costs.get(JdbcStoreBenchmarks.BASELINE_FRESH);
        String cpu = Double.isNaN(idem.serverMicros()) || Double.isNaN(bare.serverMicros()) ? "" : String.format(
                Locale.ROOT, " Here the server spent %.0f µs of CPU per fresh call against the baseline's %.0f µs.",
                idem.serverMicros(), bare.serverMicros());
        return List.of(
                "**In this run** the fresh call reached 0.8 of the baseline at " + threads(fresh)
                        + ", and the replay of a key this JVM does not hold at " + threads(replay)
                        + ". With the error bars above, a ratio is a direction, not a verdict: rerun on a quiet"
                        + " machine.",
                "",
                "**Why a replay costs a read.** The claim is one statement that reads the key's row first (a CTE"
                        + " whose first step is a plain `SELECT`) and inserts the row only when there is none. A replay"
                        + " is therefore a plain read: no row lock, no transaction id, no commit record waiting for the"
                        + " disk. It is still a larger statement than the bare `SELECT`: PostgreSQL starts the insert"
                        + " it carries even when it writes nothing, and it returns the database's time; so it costs the"
                        + " server more CPU than the `SELECT` (the table above), and the engine decodes the stored"
                        + " result. A row whose record is claimable (released, deleted, expired, or in progress past"
                        + " its lease) is taken over by a second statement, an `UPDATE` guarded by the version read;"
                        + " until that was split off, every claim statement carried the takeover's `UPDATE` as a third"
                        + " CTE, which PostgreSQL started on every execution, whether anything was claimable or not."
                        + " With several threads, replays of one key that meet in flight coalesce in the JVM (one claim"
                        + " answers every caller waiting on it; the threads cycle over the same 200 keys), so there the"
                        + " replay's throughput can pass the bare `SELECT`'s. The transactional mode"
                        + " (`storeTransaction`) keeps one locking statement with the takeover in it, since a"
                        + " concurrent caller must wait on the row there.",
                "",
                "**What a fresh call costs beside the baseline.** Both make two round trips and commit twice, each"
                        + " commit waiting for its log to reach the disk. Where those waits dominate (one thread, or a"
                        + " disk that other work keeps busy) both are bound by the disk, and the ratio mostly shows"
                        + " how the flush times varied between the two measurements. With many threads PostgreSQL"
                        + " flushes many commits at once, the waits shrink per call, and the CPU of the two shared"
                        + " cores (client and server) becomes the limit: the CPU table above. On the server the claim"
                        + " costs more than the bare `INSERT`: one statement that reads the row, inserts it with a"
                        + " fencing token drawn from the `<table>_tokens` sequence (never cached per connection, or"
                        + " tokens would not grow across processes), and returns the token." + cpu + " Checked by hand"
                        + " when this report was written, with the backend's CPU over 10,000 executions of each"
                        + " statement shape alone, the shapes taking turns: `nextval` and the database's time add less"
                        + " than the 5 µs such a count resolves (a bare `INSERT` with and without them); the completion"
                        + " updates are HOT (heap-only, `pg_stat_user_tables.n_tup_hot_upd`: 97% to 100% of them, for"
                        + " Idem's table and the baseline's alike), so a lower fillfactor would not make them cheaper;"
                        + " PostgreSQL plans each statement once per connection (a generic plan, per"
                        + " `pg_prepared_statements`); and a fresh claim writes the log records of the bare insert,"
                        + " plus the sequence's one record per 32 tokens. What remains is the statement's execution:"
                        + " the read of the row and the plan nodes around the insert. The pool is not the limit: 32"
                        + " connections for at most 32 threads, each holding one connection at a time, as the baseline"
                        + " does. In the JVM, the engine adds its own work per call (the key's derivation, the"
                        + " in-flight and local-result bookkeeping, the java codec's encoding of the result): the"
                        + " client CPU column, and the allocation shown above.");
    }

    private static String threads(List<String> counts) {
        return counts.isEmpty() ? "no thread count" : String.join(", ", counts) + " thread(s)";
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** The server's version and the one setting every write's cost hangs on. */
    private static String serverDescription() throws SQLException {
        try (com.zaxxer.hikari.HikariDataSource pool = JdbcStoreBenchmarks.pool(1);
             Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('server_version'),"
                     + " current_setting('synchronous_commit'), current_setting('fsync')")) {
            rs.next();
            return "PostgreSQL " + rs.getString(1) + " (synchronous_commit = " + rs.getString(2) + ", fsync = "
                    + rs.getString(3) + ": every commit that wrote waits for its log to reach the disk)";
        }
    }

    /** Replaces the section between the markers, or appends it; the rest of the file stays as it is. */
    private static void write(Path docs, String section) throws IOException {
        String text = Files.exists(docs) ? Files.readString(docs) : "# Benchmarks\n";
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        if (start >= 0 && end > start) {
            int after = end + END.length();
            if (after < text.length() && text.charAt(after) == '\n') {
                after++;
            }
            text = text.substring(0, start) + section + text.substring(after);
        } else {
            text = text.endsWith("\n") ? text + "\n" + section : text + "\n\n" + section;
        }
        Files.writeString(docs, text);
    }
}
