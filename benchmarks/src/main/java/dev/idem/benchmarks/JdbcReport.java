package dev.idem.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
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
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

import static dev.idem.benchmarks.Medians.median;
import static dev.idem.benchmarks.Medians.ratioSpread;
import static dev.idem.benchmarks.Medians.spread;

/**
 * Runs {@link JdbcStoreBenchmarks} at 1, 8 and 32 threads against the PostgreSQL at {@code IDEM_BENCH_POSTGRES_URL}
 * (else {@code IDEM_TEST_POSTGRES_URL}), with allocation per call ({@code -prof gc}): the fresh calls in
 * {@value #ROUNDS} rounds, baseline and Idem taking turns, each trial on tables of its own after a checkpoint, with
 * what the server did meanwhile ({@link PgActivity}); the replays in one trial each. It counts the round trips of each
 * kind of call and their CPU, server and client ({@link CountingDataSource}, 10,000 calls each), and writes the
 * "JDBC store on PostgreSQL" section of {@code docs/benchmarks.md} (between its markers; appended when absent). The rest of the file is kept, and
 * benchmarks/run.sh keeps this section ({@link Report#KEPT_SECTIONS}).
 *
 * <pre>
 * mvn -q -B -ntp -pl benchmarks -am package -DskipTests
 * IDEM_BENCH_POSTGRES_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \
 *     java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.JdbcReport docs/benchmarks.md
 * </pre>
 *
 * Arguments: {@code docs/benchmarks.md [warm-up iterations (6)] [measured iterations (8)] [seconds each (1)]}. Many
 * short iterations rather than a few long ones: JMH's error is Student's t at 99.9% times the standard error, and t
 * is 31.6 for 3 iterations but 5.4 for 8, so with the same time per benchmark the error bars narrow about sixfold.
 * Six warm-up seconds, since every trial is a JVM of its own: with two, Idem's fresh calls were still climbing through
 * the measured iterations of a loaded machine (the JIT compiler had the engine to compile, where the baseline has the
 * driver alone), which weighed on Idem's score and not on the baseline's.
 */
public final class JdbcReport {
    private static final ReportSection SECTION = ReportSection.named("jdbc-benchmarks");
    private static final int[] THREADS = {1, 8, 32};
    private static final int COUNTED_CALLS = 10_000;

    private JdbcReport() {
    }

    /** How many trials of each fresh benchmark per thread count, the two taking turns. */
    static final int ROUNDS = 3;
    private static final String BASELINE = "baselineFresh";
    private static final String IDEM = "idemFresh";

    /** One benchmark's throughput (calls per second, all threads) with its error, and its allocation per call. */
    private record Score(double perSecond, double error, double bytesPerCall) {
    }

    /**
     * One trial of a fresh benchmark on tables of its own: its score, the calls it made (warm-up included: the rows it
     * wrote), what the server did meanwhile (checkpoints, WAL, full-page images) and the load average as it began.
     */
    private record Trial(int threads, int round, String benchmark, Score score, long calls, PgActivity.Delta server,
                         double load) {
        double walPerCall() {
            return (double) server.walBytes() / calls;
        }
    }

    public static void main(String[] args) throws Exception {
        Path docs = Path.of(args.length > 0 ? args[0] : "docs/benchmarks.md");
        int warmups = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        String server = serverDescription();
        double loadBefore = loadAverage();
        Map<String, JdbcCallCosts.Cost> roundTrips = JdbcCallCosts.countStatements(COUNTED_CALLS);
        Map<Integer, Map<String, Score>> scores = new HashMap<>();
        List<Trial> trials = new ArrayList<>();
        for (int threads : THREADS) {
            // The fresh calls: the baseline and Idem take turns, each trial on tables of its own prepared here, so
            // the server's activity around it can be read (the trial's JVM is gone when it is).
            for (int round = 1; round <= ROUNDS; round++) {
                for (String benchmark : new String[] {BASELINE, IDEM}) {
                    trials.add(trial(threads, round, benchmark, warmups, iterations, seconds));
                }
            }
            // The replays read: each trial prepares tables of its own in its JVM (with a checkpoint).
            Options options = options(threads, "(idemReplayFromStore|baselineReplay|idemReplayHeld)", warmups,
                    iterations, seconds).build();
            scores.put(threads, scores(new Runner(options).run()));
        }
        double loadAfter = loadAverage();
        SECTION.write(docs, section(scores, trials, roundTrips, server, loadBefore, loadAfter, warmups, iterations,
                seconds));
        System.out.println("wrote the JDBC section of " + docs);
    }

    private static OptionsBuilder options(int threads, String benchmarks, int warmups, int iterations,
                                          int seconds) {
        OptionsBuilder options = new OptionsBuilder();
        options.include(JdbcStoreBenchmarks.class.getName() + "\\." + benchmarks + "$")
                .threads(threads).forks(1).warmupIterations(warmups).warmupTime(TimeValue.seconds(seconds))
                .measurementIterations(iterations).measurementTime(TimeValue.seconds(seconds))
                .addProfiler(GCProfiler.class);
        return options;
    }

    private static Map<String, Score> scores(Iterable<RunResult> results) {
        Map<String, Score> byName = new HashMap<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            Result<?> primary = r.getPrimaryResult();
            Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            byName.put(name.substring(name.lastIndexOf('.') + 1), new Score(primary.getScore(),
                    primary.getScoreError(), alloc == null ? Double.NaN : alloc.getScore()));
        }
        return byName;
    }

    /**
     * One trial of {@code benchmark} on fresh tables: prepared here (autovacuum off, a checkpoint last), the server's
     * counters read, the trial run in its JVM, the counters read again once its connections are gone, the calls
     * counted as the rows it wrote, the tables dropped.
     */
    private static Trial trial(int threads, int round, String benchmark, int warmups, int iterations, int seconds)
            throws Exception {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        try (HikariDataSource pool = JdbcStoreBenchmarks.pool(2)) {
            JdbcStoreBenchmarks.Database.prepare(pool, suffix);
        }
        try (Connection admin = admin()) {
            try {
                PgActivity.awaitDisconnected(admin);
                double load = loadAverage();
                PgActivity.Counters before = PgActivity.read(admin);
                Options options = options(threads, benchmark, warmups, iterations, seconds)
                        .jvmArgsAppend("-D" + JdbcStoreBenchmarks.Database.TABLES + "=" + suffix).build();
                Score score = scores(new Runner(options).run()).get(benchmark);
                PgActivity.awaitDisconnected(admin);
                PgActivity.Delta server = PgActivity.since(admin, before);
                String table = benchmark.equals(IDEM) ? JdbcStoreBenchmarks.Database.idemTable(suffix)
                        : JdbcStoreBenchmarks.Database.baselineTable(suffix);
                long calls;
                try (Statement s = admin.createStatement();
                     ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                    rs.next();
                    calls = rs.getLong(1) - JdbcStoreBenchmarks.REPLAY_KEYS;
                }
                return new Trial(threads, round, benchmark, score, calls, server, load);
            } finally {
                try (Statement s = admin.createStatement()) {
                    for (String t : new String[] {JdbcStoreBenchmarks.Database.idemTable(suffix),
                            JdbcStoreBenchmarks.Database.baselineTable(suffix)}) {
                        s.execute("DROP TABLE IF EXISTS " + t);
                        s.execute("DROP SEQUENCE IF EXISTS " + t + "_tokens");
                    }
                }
            }
        }
    }

    /** A connection of its own (not a pool's), so {@link PgActivity#awaitDisconnected} does not wait for it. */
    private static Connection admin() throws SQLException {
        return DriverManager.getConnection(JdbcStoreBenchmarks.url());
    }

    private static String section(Map<Integer, Map<String, Score>> scores, List<Trial> trials,
                                  Map<String, JdbcCallCosts.Cost> roundTrips,
                                  String server, double loadBefore, double loadAfter, int warmups, int iterations,
                                  int seconds) {
        StringBuilder s = new StringBuilder();
        Consumer<String> line = l -> s.append(l).append('\n');
        line.accept(SECTION.start());
        line.accept("## JDBC store on PostgreSQL");
        line.accept("");
        line.accept("Generated on " + LocalDate.now() + " by `JdbcReport` (per trial " + warmups + " warm-up and "
                + iterations + " measured iterations of " + seconds + " s, one fork, with `-prof gc`);"
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
                + " connections; the baselines run through the same pool, on a table made by the store's own DDL,"
                + " each statement on a connection borrowed from the pool as the store borrows one per operation:");
        line.accept("");
        line.accept("- `idemFresh`: a new key each call: the claim (one statement), the body, the completion (one"
                + " `UPDATE`).");
        line.accept("- `baselineFresh`, the issue's baseline: the least a fresh call can do with the same row, a bare"
                + " `INSERT ... ON CONFLICT DO NOTHING` and an `UPDATE` of that row. Its values have the lengths of"
                + " Idem's, read from Idem's rows as the trial starts: a key of Idem's form"
                + " (`idem:<namespace>:<scope>:<hash>`, its SHA-256 the primary key), Idem's payload hash and owner,"
                + " and the result as Idem's codec stored it (its header and body), so the two write rows, index"
                + " entries and log records of the same sizes.");
        line.accept("- `idemReplayFromStore`: a completed key this JVM does not hold (the engine's clock runs two hours"
                + " ahead of the database's, which the store keeps, and the engine sees the store without the time its"
                + " claims report (`StoreWithoutItsTime`), so the results the engine holds never count): one"
                + " claim statement that reads the row and answers with the stored record.");
        line.accept("- `baselineReplay`: a bare `SELECT` of the row by its key hash, the least any replay can do.");
        line.accept("- `idemReplayHeld`: a completed key this JVM holds: no statement.");
        line.accept("");
        line.accept("**Trials that meet the server alike.** A write's cost depends on what the server does beside it:"
                + " a checkpoint makes the next change of every page write the whole page to the log (a full-page"
                + " image), autovacuum visits a table when enough rows changed, and a table that grew from one trial"
                + " to the next has more index pages to change. So every trial runs on tables of its own, made for"
                + " it, with autovacuum off for each (`ALTER TABLE ... SET (autovacuum_enabled = off)`), and starts"
                + " after a `CHECKPOINT`; and the fresh calls are measured in " + ROUNDS + " rounds per thread"
                + " count, the baseline and Idem taking turns (baseline, Idem, baseline, Idem, ...), so a change of"
                + " the machine's load weighs on both. The trials table below shows what the server did in each:"
                + " checkpoints (`pg_stat_bgwriter`, read after the `CHECKPOINT` has been counted: the checkpointer"
                + " wakes the command before it publishes its count), WAL bytes (the insert position,"
                + " `pg_current_wal_insert_lsn()`) and full-page images (`pg_stat_wal`, read once the trial's"
                + " connections are closed, since a backend publishes its counts at most once a second while it"
                + " runs, and for certain when it exits). A trial's calls are the rows it wrote, its warm-up"
                + " included, as are its WAL and images. The server is shared: the work of others on it counts in"
                + " these numbers too.");
        line.accept("");
        line.accept("Fresh calls per second, all threads together: for each benchmark the median of its " + ROUNDS
                + " trials (lowest–highest), and the median (lowest–highest) of the rounds' ratios, Idem's"
                + " throughput over the baseline's in the same round; the goal is >= 0.8; below 0.8 is in bold.");
        line.accept("");
        line.accept("| threads | `baselineFresh` | `idemFresh` | fresh / baseline (goal 0.8) |");
        line.accept("|---|---|---|---|");
        for (int threads : THREADS) {
            List<Double> base = perSecond(trials, threads, BASELINE);
            List<Double> idem = perSecond(trials, threads, IDEM);
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < Math.min(base.size(), idem.size()); i++) {
                ratios.add(idem.get(i) / base.get(i));
            }
            line.accept(String.format(Locale.ROOT, "| %d | %s | %s | %s |", threads, spread(base, "%.0f"),
                    spread(idem, "%.0f"), ratioSpread(ratios)));
        }
        line.accept("");
        line.accept("Replays, calls per second, all threads together (score ± JMH's 99.9% error, one trial each); the"
                + " replay's goal is >= 0.8 of the fresh baseline's median throughput at the same thread count:");
        line.accept("");
        line.accept("| threads | `idemReplayFromStore` | replay / `baselineFresh` (goal 0.8) | `baselineReplay` |"
                + " replay / `SELECT` | `idemReplayHeld` |");
        line.accept("|---|---|---|---|---|---|");
        for (int threads : THREADS) {
            Map<String, Score> t = scores.get(threads);
            Score replay = t.get("idemReplayFromStore");
            Score select = t.get("baselineReplay");
            double base = median(perSecond(trials, threads, BASELINE));
            line.accept(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %.0f |", threads, score(replay),
                    ratio(replay.perSecond / base), score(select), ratio(replay.perSecond / select.perSecond),
                    t.get("idemReplayHeld").perSecond));
        }
        line.accept("");
        line.accept("The fresh trials, in the order they ran: throughput, the calls made (warm-up included), and what"
                + " the server did meanwhile; the load average as each began:");
        line.accept("");
        line.accept("| threads | round | benchmark | calls/s | calls | checkpoints | WAL (MB) | WAL per call (B) |"
                + " full-page images | images per 1,000 calls | load |");
        line.accept("|---|---|---|---|---|---|---|---|---|---|---|");
        for (Trial t : trials) {
            line.accept(String.format(Locale.ROOT, "| %d | %d | `%s` | %.0f | %,d | %d | %.1f | %.0f | %,d | %.1f |"
                            + " %.1f |", t.threads(), t.round(), t.benchmark(), t.score().perSecond(), t.calls(),
                    t.server().checkpoints(), t.server().walBytes() / 1e6, t.walPerCall(),
                    t.server().fullPageImages(), 1000.0 * t.server().fullPageImages() / t.calls(), t.load()));
        }
        List<Double> idemWal = trials.stream().filter(t -> t.benchmark().equals(IDEM)).map(Trial::walPerCall)
                .toList();
        List<Double> baseWal = trials.stream().filter(t -> t.benchmark().equals(BASELINE)).map(Trial::walPerCall)
                .toList();
        line.accept("");
        line.accept(String.format(Locale.ROOT, "WAL per fresh call, median over all trials: Idem %.0f B, the baseline"
                + " %.0f B (Idem / baseline %.2f).", median(idemWal), median(baseWal),
                median(idemWal) / median(baseWal)));
        line.accept("");
        line.accept("Allocation per call in the benchmark's JVM (`gc.alloc.rate.norm`, bytes, 32 threads, where the"
                + " most calls share the JVM's background allocation; for the fresh calls the median of the trials):"
                + " the pool, the driver and, for Idem's calls, the engine and the store:");
        line.accept("");
        line.accept("| `baselineFresh` | `idemFresh` | `baselineReplay` | `idemReplayFromStore` | `idemReplayHeld` |");
        line.accept("|---|---|---|---|---|");
        int most = THREADS[THREADS.length - 1];
        Map<String, Score> mostScores = scores.get(most);
        line.accept(String.format(Locale.ROOT, "| %.0f | %.0f | %.0f | %.0f | %.0f |",
                median(allocation(trials, most, BASELINE)), median(allocation(trials, most, IDEM)),
                mostScores.get("baselineReplay").bytesPerCall, mostScores.get("idemReplayFromStore").bytesPerCall,
                mostScores.get("idemReplayHeld").bytesPerCall));
        line.accept("");
        line.accept("Round trips and CPU per call, counted over " + String.format(Locale.ROOT, "%,d", COUNTED_CALLS)
                + " calls of each kind through a pool of one connection, after a warm-up of each, the kinds taking"
                + " turns (" + JdbcCallCosts.ROUNDS + " turns, each a tenth of the calls) so that a change of"
                + " the machine's load weighs on all alike. Round trips are counted by `CountingDataSource` (a wrapper"
                + " of the pool that counts every `execute*` of every statement, each one round trip to the server)."
                + " Server CPU is the time of that connection's backend process, read from `/proc` before and after"
                + " each turn (in steps of 10 ms; n/a when the server runs elsewhere); client CPU is the benchmark"
                + " JVM's process CPU time (every thread: the caller's, the pool's, the collector's, the"
                + " compiler's); the calling thread's is the part spent on the thread that makes the calls (the"
                + " engine, the store, the driver), without the JVM's background work. Each is given as user +"
                + " system time and as user time alone: the system time is mostly the sockets' (a round trip's"
                + " send and receive, the same for two calls of as many round trips), the user time the code's own"
                + " work. CPU time is far less sensitive to other work on the machine than throughput, and with"
                + " client and server on the same two cores their sum is what bounds the throughput at 8 and 32"
                + " threads. The replays of a key this JVM holds cycle over 200 keys, each replayed once in the"
                + " warm-up (its first replay reads the store, then the JVM holds the result):");
        line.accept("");
        line.accept("| call | round trips | goal | server CPU (µs) | server user (µs) | client CPU (µs) |"
                + " client user (µs) | calling thread CPU (µs) | calling thread user (µs) | server + client (µs) |");
        line.accept("|---|---|---|---|---|---|---|---|---|---|");
        line.accept(trips(roundTrips, JdbcCallCosts.FRESH, "`idemFresh`", "2"));
        line.accept(trips(roundTrips, JdbcCallCosts.REPLAY_FROM_STORE, "`idemReplayFromStore`", "1"));
        line.accept(trips(roundTrips, JdbcCallCosts.REPLAY_HELD, "`idemReplayHeld`", "0"));
        line.accept(trips(roundTrips, JdbcCallCosts.BASELINE_FRESH, "`baselineFresh`", ""));
        line.accept(trips(roundTrips, JdbcCallCosts.BASELINE_REPLAY, "`baselineReplay`", ""));
        JdbcCallCosts.Cost idem = roundTrips.get(JdbcCallCosts.FRESH);
        JdbcCallCosts.Cost bare = roundTrips.get(JdbcCallCosts.BASELINE_FRESH);
        if (!Double.isNaN(idem.totalMicros()) && !Double.isNaN(bare.totalMicros())) {
            line.accept("");
            line.accept(String.format(Locale.ROOT, "Where the two cores are the limit, a fresh call can reach at most"
                    + " the baseline's CPU over its own, **%.2f** of the baseline's throughput (%.0f µs against %.0f"
                    + " µs per call, server and client together); of the difference, %.0f µs is the server's and"
                    + " %.0f µs the client's (of which %.0f µs on the calling thread). In user time alone, %.0f µs"
                    + " against %.0f µs (%.2f).", bare.totalMicros() / idem.totalMicros(), idem.totalMicros(),
                    bare.totalMicros(), idem.serverMicros() - bare.serverMicros(),
                    idem.clientMicros() - bare.clientMicros(), idem.threadMicros() - bare.threadMicros(),
                    idem.totalUserMicros(), bare.totalUserMicros(),
                    bare.totalUserMicros() / idem.totalUserMicros()));
        }
        line.accept("");
        notes(scores, trials, roundTrips).forEach(line);
        line.accept(SECTION.end());
        return s.toString();
    }

    /** The throughputs of one benchmark's trials at one thread count, in the order they ran. */
    private static List<Double> perSecond(List<Trial> trials, int threads, String benchmark) {
        return trials.stream().filter(t -> t.threads() == threads && t.benchmark().equals(benchmark))
                .map(t -> t.score().perSecond()).toList();
    }

    private static List<Double> allocation(List<Trial> trials, int threads, String benchmark) {
        return trials.stream().filter(t -> t.threads() == threads && t.benchmark().equals(benchmark))
                .map(t -> t.score().bytesPerCall()).toList();
    }

    private static String score(Score s) {
        return String.format(Locale.ROOT, "%.0f ± %.0f", s.perSecond, s.error);
    }

    private static String ratio(double r) {
        return String.format(Locale.ROOT, r >= 0.8 ? "%.2f" : "**%.2f**", r);
    }

    private static String trips(Map<String, JdbcCallCosts.Cost> costs, String what, String name,
                                String goal) {
        JdbcCallCosts.Cost c = costs.get(what);
        return String.format(Locale.ROOT, "| %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %s |", name,
                c.statements(), goal, micros(c.serverMicros()), micros(c.serverUserMicros()),
                micros(c.clientMicros()), micros(c.clientUserMicros()), micros(c.threadMicros()),
                micros(c.threadUserMicros()), micros(c.totalMicros()));
    }

    private static String micros(double micros) {
        return Double.isNaN(micros) ? "n/a" : String.format(Locale.ROOT, "%.0f", micros);
    }

    /** Which goals this run met, said from its own numbers, then what the numbers mean and what they do not. */
    private static List<String> notes(Map<Integer, Map<String, Score>> scores, List<Trial> trials,
                                      Map<String, JdbcCallCosts.Cost> costs) {
        List<String> fresh = new ArrayList<>();
        List<String> replay = new ArrayList<>();
        for (int threads : THREADS) {
            double base = median(perSecond(trials, threads, BASELINE));
            if (median(perSecond(trials, threads, IDEM)) / base >= 0.8) {
                fresh.add(Integer.toString(threads));
            }
            if (scores.get(threads).get("idemReplayFromStore").perSecond / base >= 0.8) {
                replay.add(Integer.toString(threads));
            }
        }
        JdbcCallCosts.Cost idem = costs.get(JdbcCallCosts.FRESH);
        JdbcCallCosts.Cost bare = costs.get(JdbcCallCosts.BASELINE_FRESH);
        String cpu = Double.isNaN(idem.serverMicros()) || Double.isNaN(bare.serverMicros()) ? "" : String.format(
                Locale.ROOT, " Here the server spent %.0f µs of CPU per fresh call against the baseline's %.0f µs.",
                idem.serverMicros(), bare.serverMicros());
        return List.of(
                "**In this run** the fresh call's median reached 0.8 of the baseline's at " + threads(fresh)
                        + ", and the replay of a key this JVM does not hold at " + threads(replay)
                        + ". The spread of the rounds shows how far one trial can be trusted: rerun on a quiet"
                        + " machine.",
                "",
                "**Why a replay costs a read.** A store whose recent claims met keys with rows reads first: the"
                        + " claim is one statement that reads the key's row first (a CTE whose first step is a plain"
                        + " `SELECT`) and inserts the row only when there is none. A replay"
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
                        + " cores (client and server) becomes the limit: the CPU table above. A store whose recent"
                        + " claims nearly all met new keys (here, every one) starts a claim with a plain `INSERT ... ON"
                        + " CONFLICT DO NOTHING RETURNING`, the baseline's statement plus a fencing token drawn from the"
                        + " `<table>_tokens` sequence (never cached per connection, or tokens would not grow across"
                        + " processes) and returned; a key that turns out to have a row is then read by a second"
                        + " statement. Until this choice was made (`ClaimPaths` in the jdbc store), every claim read"
                        + " first, and at 32 threads the fresh call reached 0.69-0.71 of the baseline." + cpu
                        + " The database's"
                        + " time is read as `CAST(floor(date_part('epoch', now()) * 1000) AS BIGINT)`: `date_part`"
                        + " works in float8, where `EXTRACT` (a numeric since PostgreSQL 14) costs several times as"
                        + " much, a few tenths of a µs per use, four uses per fresh call. The completion updates are"
                        + " HOT (heap-only, `pg_stat_user_tables.n_tup_hot_upd`), for Idem's table and the baseline's"
                        + " alike, so a lower fillfactor would not make them cheaper; PostgreSQL plans each statement"
                        + " once per connection (a generic plan, per `pg_prepared_statements`). What the read-first"
                        + " claim added was the statement's execution: the read of the row and the plan nodes around"
                        + " the insert. Checked by hand: a profile of the backend (`perf`) over each pair of"
                        + " statements run by `pgbench` put the difference in the executor's set-up of the larger"
                        + " plan (its expressions compiled, its tuple descriptors made, on every execution) rather"
                        + " than in any one node; and with 32 `pgbench` clients and synchronous commit the two pairs"
                        + " ran within a few percent of each other (the log's flushes the limit), so where the"
                        + " benchmark's ratio at 32 threads falls well below the CPU bound, the JVM's share of the two"
                        + " cores (the client columns) is where to look. The pool"
                        + " is not the limit: 32 connections for at most 32 threads, each holding one connection at a"
                        + " time, as the baseline does. In the JVM, the engine adds its own work per call (the key's"
                        + " derivation, the in-flight and local-result bookkeeping, the java codec's encoding of the"
                        + " result): the client CPU columns, and the allocation shown above.",
                "",
                "**Where Idem's WAL differs from the baseline's.** With rows of the same lengths, record for"
                        + " record the same: per call the heap insert and its confirmation (`INSERT ... ON CONFLICT`"
                        + " inserts speculatively), the index entry, the HOT update of the row, two commit records, and"
                        + " now and then a page prune or an index split (`JdbcWalBreakdown`, which splits a run's WAL"
                        + " by record type with `pg_waldump --stats=record`). Idem adds only its token sequence's"
                        + " record, one per 32 tokens (PostgreSQL logs a sequence 32 values ahead; about 3 bytes per"
                        + " call), and the sequence page's full-page image once after each checkpoint. When the"
                        + " baseline wrote shorter values (its own key of about 45 characters against Idem's 60, an"
                        + " 11-character owner, a 6-byte result against the codec's 14), Idem logged about a tenth"
                        + " more per call, all of it the longer rows in the insert and update records. On tables"
                        + " made for the trial after a checkpoint, full-page images are few (the pages that existed"
                        + " at the checkpoint; the pages the trial adds need none), so they no longer weigh on one"
                        + " trial and not on another. Most of an update's record is the new row after its unchanged"
                        + " leading columns (the key hash and the key: `state` comes third), for Idem and the"
                        + " baseline alike.");
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

}
