package dev.idem.benchmarks;

import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.idem.benchmarks.Medians.median;
import static dev.idem.benchmarks.Medians.ratioSpread;
import static dev.idem.benchmarks.Medians.spread;

/**
 * Runs {@link RedisBenchmarks} at 1, 8 and 32 threads against a redis-server it starts from the PATH (on a free
 * loopback port, without persistence, stopped at the end), counts the round trips of each kind of call on that server
 * ({@code INFO commandstats} before and after 1,000 calls), and writes the "Redis store" section of
 * {@code docs/benchmarks.md} (between its markers; appended when absent).
 *
 * <pre>
 * mvn -q -B -ntp -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.RedisReport docs/benchmarks.md
 * </pre>
 *
 * Arguments: {@code docs/benchmarks.md [warmup iterations (10)] [measurement iterations (5)]}, each iteration 1 s.
 * Ten seconds of warm-up because at 8 and 32 threads on 2 cores both the bare commands and Idem's calls still
 * climbed for about that long (the JIT's compiler threads share the cores with the callers, the client's event
 * loop and the server): with 4, the measured iterations of one run went from 14 to 35 calls/ms.
 */
public final class RedisReport {
    private static final ReportSection SECTION = ReportSection.named("redis-benchmarks");
    static final String COMMAND = "java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.RedisReport"
            + " docs/benchmarks.md";
    private static final int[] THREADS = {1, 8, 32};
    /** How many trials of each fresh benchmark per thread count, the two taking turns. */
    static final int ROUNDS = 3;
    private static final String BASELINE = "baselineSetNxSetXx";
    private static final String IDEM = "idemFresh";
    /** The benchmarks run in one trial per thread count. */
    private static final List<String> ONCE = List.of("baselineGet", "idemReplayFromRedis", "idemReplayHeldHere",
            "scriptFloorFresh");
    private static final int COUNTED_CALLS = 1_000;
    private static final int CPU_CALLS = 20_000;
    /**
     * Every command the redis store sends: its scripts, and a connection's handshake. Commandstats also counts what
     * the scripts run inside Redis (GET, SET, TIME...), which are not round trips, so an Idem call counts only these.
     */
    private static final Set<String> SENT_BY_THE_STORE = Set.of("evalsha", "eval", "script|load", "hello", "auth",
            "client|setinfo", "select", "ping");

    private RedisReport() {
    }

    public static void main(String[] args) throws Exception {
        Path docs = Path.of(args.length > 0 ? args[0] : "docs/benchmarks.md");
        int warmups = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Process server = null;
        RedisClient adminClient = null;
        try {
            int port = freePort();
            server = startRedis(port);
            String uri = "redis://127.0.0.1:" + port;
            System.setProperty(RedisBenchmarks.URI_PROPERTY, uri);
            adminClient = RedisClient.create(uri);
            try (StatefulRedisConnection<String, String> admin = adminClient.connect()) {
                Map<String, double[]> roundTrips = countRoundTrips(uri);
                Map<Integer, Map<String, RedisCpuPerCall.Cost>> cpu = new LinkedHashMap<>();
                for (int threads : THREADS) {
                    admin.sync().flushall(FlushMode.SYNC);
                    cpu.put(threads, RedisCpuPerCall.measure(uri, threads, CPU_CALLS));
                }
                List<Trial> trials = new ArrayList<>();
                for (int threads : THREADS) {
                    for (int round = 1; round <= ROUNDS; round++) {
                        for (String benchmark : List.of(BASELINE, IDEM)) {
                            trials.add(trial(admin, uri, threads, round, benchmark, warmups, iterations));
                        }
                    }
                    for (String benchmark : ONCE) {
                        trials.add(trial(admin, uri, threads, 1, benchmark, warmups, iterations));
                    }
                }
                SECTION.write(docs, section(trials, roundTrips, cpu, warmups, iterations));
            }
            System.out.println("wrote the Redis section of " + docs);
        } finally {
            if (adminClient != null) {
                adminClient.shutdown();
            }
            if (server != null) {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
    }

    /** One JMH run of one benchmark in a JVM of its own: its throughput, calls per millisecond, all threads. */
    private record Trial(int threads, int round, String benchmark, double score) {
    }

    /**
     * One trial of {@code benchmark} on an empty server ({@code FLUSHALL SYNC} first), so that every trial meets
     * Redis alike: a trial that followed others would insert into a larger keyspace, and meet its dictionary's
     * expansions at other moments.
     */
    private static Trial trial(StatefulRedisConnection<String, String> admin, String uri, int threads, int round,
                               String benchmark, int warmups, int iterations) throws Exception {
        admin.sync().flushall(FlushMode.SYNC);
        Options options = new OptionsBuilder().include(RedisBenchmarks.class.getName() + "\\." + benchmark + "$")
                .threads(threads).forks(1).warmupIterations(warmups).warmupTime(TimeValue.seconds(1))
                .measurementIterations(iterations).measurementTime(TimeValue.seconds(1))
                .jvmArgsAppend("-D" + RedisBenchmarks.URI_PROPERTY + "=" + uri).build();
        RunResult result = new Runner(options).runSingle();
        return new Trial(threads, round, benchmark, result.getPrimaryResult().getScore());
    }

    private static List<Double> scores(List<Trial> trials, int threads, String benchmark) {
        return trials.stream().filter(t -> t.threads() == threads && t.benchmark().equals(benchmark))
                .map(Trial::score).toList();
    }

    /** Idem's score over the baseline's, round by round. */
    private static List<Double> ratios(List<Trial> trials, int threads) {
        List<Double> ratios = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            int r = round;
            double base = trials.stream().filter(t -> t.threads() == threads && t.round() == r
                    && t.benchmark().equals(BASELINE)).findFirst().orElseThrow().score();
            double idem = trials.stream().filter(t -> t.threads() == threads && t.round() == r
                    && t.benchmark().equals(IDEM)).findFirst().orElseThrow().score();
            ratios.add(idem / base);
        }
        return ratios;
    }

    /**
     * Round trips and commands run per call of each benchmark, counted on the server: the commandstats delta over
     * 1,000 calls.
     */
    private static Map<String, double[]> countRoundTrips(String uri) {
        RedisBenchmarks bench = new RedisBenchmarks();
        RedisBenchmarks.Redis redis = new RedisBenchmarks.Redis();
        RedisBenchmarks.Keys keys = new RedisBenchmarks.Keys();
        RedisClient adminClient = RedisClient.create(uri);
        Map<String, double[]> perCall = new HashMap<>();
        try (StatefulRedisConnection<String, String> admin = adminClient.connect()) {
            redis.connect();
            try {
                perCall.put("baselineSetNxSetXx", count(admin, false, () -> bench.baselineSetNxSetXx(redis, keys)));
                perCall.put("baselineGet", count(admin, false, () -> bench.baselineGet(redis)));
                RedisBenchmarks.Here here = new RedisBenchmarks.Here();
                here.install(redis);
                perCall.put("idemFresh", count(admin, true, () -> bench.idemFresh(here, keys)));
                perCall.put("idemReplayHeldHere", count(admin, true, () -> bench.idemReplayHeldHere(here)));
                RedisBenchmarks.Elsewhere elsewhere = new RedisBenchmarks.Elsewhere();
                elsewhere.install(redis);
                perCall.put("idemReplayFromRedis", count(admin, true, () -> bench.idemReplayFromRedis(elsewhere)));
                elsewhere.replaysWereReplays();
            } finally {
                redis.close();
            }
        } finally {
            adminClient.shutdown();
        }
        return perCall;
    }

    /**
     * Per call over {@link #COUNTED_CALLS} calls, after 100 calls of warm-up (connections open, scripts loaded): the
     * commands the server received (with {@code scripts}, only those the store sends, not those its scripts run inside
     * the server), and every command it ran, scripts' commands included (a script counted once for itself too).
     */
    private static double[] count(StatefulRedisConnection<String, String> admin, boolean scripts, Runnable call) {
        for (int i = 0; i < 100; i++) {
            call.run();
        }
        Map<String, Long> before = commandStats(admin.sync().info("commandstats"), "calls");
        for (int i = 0; i < COUNTED_CALLS; i++) {
            call.run();
        }
        Map<String, Long> after = commandStats(admin.sync().info("commandstats"), "calls");
        long sent = 0;
        long ran = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            String command = e.getKey();
            if (command.equals("info")) {
                continue;
            }
            long delta = e.getValue() - before.getOrDefault(command, 0L);
            ran += delta;
            if (!scripts || SENT_BY_THE_STORE.contains(command)) {
                sent += delta;
            }
        }
        return new double[] {sent / (double) COUNTED_CALLS, ran / (double) COUNTED_CALLS};
    }

    /**
     * One figure per command from {@code INFO commandstats}: {@code field} is {@code calls} or {@code usec} (the
     * microseconds spent in the command).
     */
    static Map<String, Long> commandStats(String info, String field) {
        Map<String, Long> byCommand = new HashMap<>();
        Matcher m = Pattern.compile("cmdstat_([^:]+):[^\\r\\n]*?\\b" + field + "=(\\d+)").matcher(info);
        while (m.find()) {
            byCommand.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return byCommand;
    }

    private static String section(List<Trial> trials, Map<String, double[]> roundTrips,
                                  Map<Integer, Map<String, RedisCpuPerCall.Cost>> cpu, int warmups,
                                  int iterations) {
        StringBuilder s = new StringBuilder();
        Consumer<String> line = l -> s.append(l).append('\n');
        line.accept(SECTION.start());
        line.accept("## The Redis store");
        line.accept("");
        line.accept("Generated on " + LocalDate.now() + " by `RedisReport` (per trial " + warmups + " warm-up and "
                + iterations + " measured iterations of 1 s, in a JVM of its own, on an emptied server); regenerate"
                + " with:");
        line.accept("");
        line.accept("```sh");
        line.accept("mvn -q -B -ntp -pl benchmarks -am package -DskipTests");
        line.accept(COMMAND);
        line.accept("```");
        line.accept("");
        line.accept("Machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + "; a redis-server "
                + "the command starts on loopback (" + redisVersion() + "), so client and server share the cores. Load "
                + "average when the section was written: " + String.format(Locale.ROOT, "%.1f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
                + " (other work on the machine makes every score here noisy; compare ratios, not absolutes).");
        line.accept("`@Idempotent` (compile-time woven, the `redis` store, java codec) against the same work done "
                + "bare on the same Lettuce client and server: a fresh call (claim, run, complete) against "
                + "`SET k v NX PX` + `SET k v XX PX`; a replay of a result this JVM does not hold (the claim that "
                + "loses returns the record; the replaying engine's clock runs a day ahead and it sees the store "
                + "without the time its claims report (`StoreWithoutItsTime`), so its in-memory results are always "
                + "stale to it, as for a process that did not compute them) against the same pair and "
                + "against one `GET`; and a replay of a result this JVM holds. The bare commands write values as long "
                + "as Idem's records (`RecordLengths`, read from Redis after one real call as each trial starts: "
                + "the claimed record for `SET NX`, the completed one for `SET XX` and `GET`), so both move the same "
                + "bytes. Throughput in calls per millisecond, all threads together; a ratio is Idem's throughput "
                + "over the baseline's (goal >= 0.8; below it in bold).");
        line.accept("");
        line.accept("**Trials that meet the machine and the server alike.** On this machine a trial's score moves by"
                + " 10-30% from one JVM to the next (where the scheduler puts the callers, Lettuce's event loop and"
                + " Redis on the two cores), and a server that has taken millions of keys inserts more slowly (larger"
                + " dictionaries, their expansions). So every trial starts on an emptied server (`FLUSHALL SYNC`), and"
                + " the fresh calls are measured in " + ROUNDS + " rounds per thread count, the baseline and Idem"
                + " taking turns, each in a JVM of its own; a round's ratio is Idem's score over the baseline's in the"
                + " same round. Each cell is the median of the " + ROUNDS + " trials or ratios (lowest–highest).");
        line.accept("");
        line.accept("| threads | SET NX + SET XX | `idemFresh` | fresh / baseline (goal 0.8) |");
        line.accept("|---|---|---|---|");
        for (int threads : THREADS) {
            line.accept(String.format(Locale.ROOT, "| %d | %s | %s | %s |", threads,
                    spread(scores(trials, threads, BASELINE), "%.2f"), spread(scores(trials, threads, IDEM), "%.2f"),
                    ratioSpread(ratios(trials, threads))));
        }
        line.accept("");
        line.accept("The replays, and `scriptFloorFresh` (below), one trial each; the replay's ratio to the pair is to"
                + " the median of the pair's trials at that thread count. With several threads, replays of the one"
                + " key that meet in flight coalesce in the JVM (one claim answers every caller waiting on it), so"
                + " their throughput can pass the bare GET's.");
        line.accept("");
        line.accept("| threads | GET | `idemReplayFromRedis` | ratio to SET NX + SET XX | ratio to GET |"
                + " `idemReplayHeldHere` | `scriptFloorFresh` | its ratio to SET NX + SET XX |");
        line.accept("|---|---|---|---|---|---|---|---|");
        for (int threads : THREADS) {
            double pair = median(scores(trials, threads, BASELINE));
            double get = scores(trials, threads, "baselineGet").get(0);
            double remote = scores(trials, threads, "idemReplayFromRedis").get(0);
            double floor = scores(trials, threads, "scriptFloorFresh").get(0);
            line.accept(String.format(Locale.ROOT, "| %d | %.2f | %.2f | %s | %s | %.0f | %.2f | %.2f |",
                    threads, get, remote, ratio(remote / pair), ratio(remote / get),
                    scores(trials, threads, "idemReplayHeldHere").get(0), floor, floor / pair));
        }
        line.accept("");
        line.accept("Every trial, in the order it ran (calls/ms):");
        line.accept("");
        line.accept("| threads | round | benchmark | calls/ms |");
        line.accept("|---|---|---|---|");
        for (Trial t : trials) {
            line.accept(String.format(Locale.ROOT, "| %d | %d | `%s` | %.2f |", t.threads(), t.round(),
                    t.benchmark(), t.score()));
        }
        line.accept("");
        line.accept("Round trips per call, counted on the server (`INFO commandstats` before and after "
                + COUNTED_CALLS + " calls made one at a time, after 100 of warm-up; for Idem's calls only the commands"
                + " the store sends "
                + "count (EVALSHA, SCRIPT LOAD and a connection's handshake), not those its scripts run inside Redis; "
                + "with concurrent callers a call may carry several callers' claims, see the CPU table below), "
                + "and every command the server ran per call, the scripts' own commands included (each script also "
                + "counted once for itself): client and server share the cores, so what a script runs costs "
                + "throughput too.");
        line.accept("");
        line.accept("| call | round trips | goal | commands run in Redis |");
        line.accept("|---|---|---|---|");
        for (String[] row : new String[][] {{"`idemFresh`", "idemFresh", "2"},
                {"`idemReplayFromRedis`", "idemReplayFromRedis", "1"},
                {"`idemReplayHeldHere`", "idemReplayHeldHere", "0"},
                {"baseline SET NX + SET XX", "baselineSetNxSetXx", ""}, {"baseline GET", "baselineGet", ""}}) {
            double[] counted = roundTrips.get(row[1]);
            line.accept(String.format(Locale.ROOT, "| %s | %.2f | %s | %.2f |", row[0], counted[0], row[2],
                    counted[1]));
        }
        line.accept("");
        line.accept("CPU per call (`RedisCpuPerCall`): over " + CPU_CALLS + " calls after as many of warm-up, the "
                + "client's CPU (the JVM process's CPU time: the calling threads, in brackets, plus Lettuce's event "
                + "loop, the GC and the JIT) and the server's (`INFO cpu`, user + sys; in brackets the time inside "
                + "the commands the client sent, from `INFO commandstats`), in microseconds. Client and server share "
                + "the cores, so from 8 threads on throughput is bound by the total. CPU time moves less than "
                + "throughput when other work loads the machine, though still by 10-20% between runs on a busy one: "
                + "compare rows of one run, or the medians of a few. Commands sent: per call, the commands the server "
                + "received from the client (for Idem's calls, its script calls): one call at a time, a fresh call is "
                + "two, but the redis store gathers the claims (and the completions) of concurrent callers into one "
                + "script call while the previous one is on its way, so with several threads it sends fewer. "
                + "`java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.RedisCpuPerCall` measures it "
                + "alone.");
        line.accept("");
        line.accept("`scriptFloorFresh` is a second yardstick, not a store: the least a fresh call made of two server-side"
                + " scripts can cost, with no engine, on the same client. Its first `EVALSHA` takes the key if absent"
                + " (`SET NX GET`, the lease ended by the record's own `PX`) and draws a token (`INCR` on the key's"
                + " counter); its second reads the record and overwrites it with the result (`GET`, `SET`). Its record"
                + " holds no token, no times and no owner, and nothing is checked, so it is a lower bound of Idem's two"
                + " scripts (a lease and expiry on the server's `TIME` that tests can move, a fencing token that"
                + " outlives the record and is checked on every write, the record's fields, a wake-up), not an"
                + " implementation of them. Its distance from the bare `SET`s is what running scripts costs Redis"
                + " before any of Idem's work; Idem's distance from it is that work, and the engine's.");
        line.accept("");
        RedisCpuPerCall.table(cpu, CPU_CALLS).forEach(line);
        line.accept(SECTION.end());
        return s.toString();
    }

    private static String ratio(double r) {
        return String.format(Locale.ROOT, r >= 0.8 ? "%.2f" : "**%.2f**", r);
    }


    private static String redisVersion() {
        try {
            Process p = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            Matcher m = Pattern.compile("v=(\\S+)").matcher(out);
            return m.find() ? "Redis " + m.group(1) : out;
        } catch (IOException | InterruptedException e) {
            return "Redis, version unknown";
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static Process startRedis(int port) throws IOException, InterruptedException {
        Path dir = Path.of("benchmarks", "target", "redis-" + port).toAbsolutePath();
        Files.createDirectories(dir);
        Process p = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()))
                .redirectErrorStream(true).redirectOutput(new File(dir.toFile(), "redis.log")).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                new Socket(InetAddress.getLoopbackAddress(), port).close();
                return p;
            } catch (IOException notYet) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    throw new IllegalStateException("redis-server did not start on port " + port + "; see " + dir
                            + "/redis.log (is redis-server on the PATH?)");
                }
                Thread.sleep(50);
            }
        }
    }
}
