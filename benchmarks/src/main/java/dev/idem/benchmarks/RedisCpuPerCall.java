package dev.idem.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU time one call costs, client and server, for the fresh call of {@link RedisBenchmarks} and its baseline
 * ({@code SET NX} + {@code SET XX}). Client and server share the machine's cores, so with enough threads throughput is
 * bound by their sum. CPU time moves less than throughput when other work loads the machine, so it compares two
 * versions of the store on a busy one better (still by 10-20% between runs under heavy load: alternate the versions
 * and compare medians). Set {@code -Didem.bench.cpu.threads=true} to print which of the client's threads spent it.
 *
 * <p>Over {@code calls} calls (after as many of warm-up), spread over {@code threads} threads each with its own keys:
 * <ul>
 *   <li>the server's CPU: {@code INFO cpu} ({@code used_cpu_user + used_cpu_sys}) before and after, which counts
 *   everything the server does for the calls (reading and parsing, the commands, replies, its event loop), and
 *   {@code INFO commandstats} ({@code usec} summed over every command but INFO), the time inside the commands alone
 *   (a script counts its own commands too), and the commands the client sent ({@code calls});</li>
 *   <li>the client's CPU: the process's CPU time ({@code com.sun.management.OperatingSystemMXBean}) before and after,
 *   and of it the calling threads' own (each thread's {@link ThreadMXBean#getCurrentThreadCpuTime()}); the rest is
 *   Lettuce's event loop, the GC and the JIT.</li>
 * </ul>
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.RedisCpuPerCall [calls (20000)] [threads (1 8)...]
 * </pre>
 * starts a redis-server of its own (as {@link RedisReport} does) and prints the table.
 */
public final class RedisCpuPerCall {
    /** Microseconds of CPU per call. */
    record Cost(double callers, double client, double server, double inCommands, double sent, double callsPerMs) {
        double total() {
            return client + server;
        }
    }

    private RedisCpuPerCall() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int[] threads = {1, 8};
        if (args.length > 1) {
            threads = new int[args.length - 1];
            for (int i = 1; i < args.length; i++) {
                threads[i - 1] = Integer.parseInt(args[i]);
            }
        }
        Process server = null;
        try {
            int port = RedisReport.freePort();
            server = RedisReport.startRedis(port);
            Process started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(started::destroy)); // stopped (^C, kill) mid-run too
            String uri = "redis://127.0.0.1:" + port;
            System.setProperty(RedisBenchmarks.URI_PROPERTY, uri);
            Map<Integer, Map<String, Cost>> costs = new LinkedHashMap<>();
            for (int t : threads) {
                costs.put(t, measure(uri, t, calls));
            }
            System.out.println("load average " + String.format(Locale.ROOT, "%.1f",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
            table(costs, calls).forEach(System.out::println);
        } finally {
            if (server != null) {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
    }

    /** The markdown table of {@code costs}: one row per call and thread count. */
    static List<String> table(Map<Integer, Map<String, Cost>> costs, int calls) {
        List<String> lines = new ArrayList<>();
        lines.add("| call | threads | client µs (callers) | server µs (in commands) | total µs | ratio to baseline"
                + " | commands sent | calls/ms here |");
        lines.add("|---|---|---|---|---|---|---|---|");
        costs.forEach((threads, byCall) -> {
            Cost base = byCall.get("baselineSetNxSetXx");
            byCall.forEach((name, c) -> lines.add(String.format(Locale.ROOT,
                    "| %s | %d | %.1f (%.1f) | %.1f (%.1f) | %.1f | %.2f | %.2f | %.1f |",
                    name.startsWith("baseline") ? "baseline SET NX + SET XX" : "`" + name + "`", threads, c.client,
                    c.callers, c.server, c.inCommands, c.total(), c.total() / base.total(), c.sent, c.callsPerMs)));
        });
        return lines;
    }

    /** The cost per call of the fresh call and its baseline at {@code threads} threads, over {@code calls} calls. */
    static Map<String, Cost> measure(String uri, int threads, int calls) throws InterruptedException {
        RedisBenchmarks bench = new RedisBenchmarks();
        RedisBenchmarks.Redis redis = new RedisBenchmarks.Redis();
        RedisClient adminClient = RedisClient.create(uri);
        Map<String, Cost> costs = new LinkedHashMap<>();
        try (StatefulRedisConnection<String, String> admin = adminClient.connect()) {
            redis.connect();
            try {
                costs.put("baselineSetNxSetXx", measure(admin, threads, calls,
                        keys -> bench.baselineSetNxSetXx(redis, keys)));
                costs.put("scriptFloorFresh", measure(admin, threads, calls,
                        keys -> bench.scriptFloorFresh(redis, keys)));
                RedisBenchmarks.Here here = new RedisBenchmarks.Here();
                here.install(redis);
                costs.put("idemFresh", measure(admin, threads, calls, keys -> bench.idemFresh(here, keys)));
            } finally {
                redis.close();
            }
        } finally {
            adminClient.shutdown();
        }
        return costs;
    }

    private static Cost measure(StatefulRedisConnection<String, String> admin, int threads, int calls,
                                java.util.function.Consumer<RedisBenchmarks.Keys> call) throws InterruptedException {
        run(threads, calls, call, new AtomicLong()); // warm-up: the JIT, connections, scripts loaded
        run(threads, calls, call, new AtomicLong());
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double serverBefore = serverCpu(admin);
        String statsBefore = admin.sync().info("commandstats");
        Map<String, Long> threadsBefore = threadCpu();
        long processBefore = os.getProcessCpuTime();
        AtomicLong callers = new AtomicLong();
        long started = System.nanoTime();
        run(threads, calls, call, callers);
        long elapsed = System.nanoTime() - started;
        long process = os.getProcessCpuTime() - processBefore;
        if (Boolean.getBoolean("idem.bench.cpu.threads")) { // which threads of the client spent it
            Map<String, Long> after = threadCpu();
            after.forEach((name, ns) -> {
                long spent = ns - threadsBefore.getOrDefault(name, 0L);
                if (spent * 10 > process / 100) { // over 0.1% of the process
                    System.out.printf(Locale.ROOT, "  %d threads: %s %.1f µs/call%n", threads, name,
                            spent / 1e3 / calls);
                }
            });
        }
        String statsAfter = admin.sync().info("commandstats");
        long commands = sent(RedisReport.commandStats(statsBefore, "usec"),
                RedisReport.commandStats(statsAfter, "usec"));
        long sent = sent(RedisReport.commandStats(statsBefore, "calls"), RedisReport.commandStats(statsAfter, "calls"));
        double server = serverCpu(admin) - serverBefore;
        return new Cost(callers.get() / 1e3 / calls, process / 1e3 / calls, server * 1e6 / calls,
                commands / (double) calls, sent / (double) calls, calls / (elapsed / 1e6));
    }

    /** {@code calls} calls over {@code threads} threads; adds the threads' CPU nanoseconds to {@code cpu}. */
    private static void run(int threads, int calls, java.util.function.Consumer<RedisBenchmarks.Keys> call,
                            AtomicLong cpu) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CountDownLatch done = new CountDownLatch(threads);
        List<Throwable> failures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int share = calls / threads + (t < calls % threads ? 1 : 0);
            Thread worker = new Thread(() -> {
                try {
                    RedisBenchmarks.Keys keys = new RedisBenchmarks.Keys();
                    long start = mx.getCurrentThreadCpuTime();
                    for (int i = 0; i < share; i++) {
                        call.accept(keys);
                    }
                    cpu.addAndGet(mx.getCurrentThreadCpuTime() - start);
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                } finally {
                    done.countDown();
                }
            }, "cpu-per-call-" + t);
            worker.start();
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("calls still running after 10 minutes");
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a call failed", failures.get(0));
        }
    }

    /** CPU nanoseconds of every live thread, summed by name with its digits left out (one pool, one line). */
    private static Map<String, Long> threadCpu() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> byName = new HashMap<>();
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null) {
                long ns = mx.getThreadCpuTime(info.getThreadId());
                if (ns > 0) {
                    byName.merge(info.getThreadName().replaceAll("[0-9]+", "N"), ns, Long::sum);
                }
            }
        }
        return byName;
    }

    private static double serverCpu(StatefulRedisConnection<String, String> admin) {
        String info = admin.sync().info("cpu");
        return number(info, "used_cpu_user") + number(info, "used_cpu_sys");
    }

    private static double number(String info, String field) {
        Matcher m = Pattern.compile("(?m)^" + field + ":([0-9.]+)").matcher(info);
        if (!m.find()) {
            throw new IllegalStateException("INFO has no " + field);
        }
        return Double.parseDouble(m.group(1));
    }

    /**
     * A figure of the commands the client sent ({@code usec} or {@code calls}), from two {@code INFO commandstats}: a
     * script's figures include the commands it runs, which commandstats also counts on their own, so when scripts ran
     * only they count. (The redis store gathers concurrent callers' claims or completions into one script call, so at
     * several threads it sends fewer calls than it makes.)
     */
    private static long sent(Map<String, Long> before, Map<String, Long> after) {
        boolean scripts = after.containsKey("evalsha") && after.get("evalsha") > before.getOrDefault("evalsha", 0L);
        long sum = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            String command = e.getKey();
            if (!command.equals("info") && (!scripts || command.equals("evalsha") || command.equals("eval")
                    || command.equals("script|load"))) {
                sum += e.getValue() - before.getOrDefault(command, 0L);
            }
        }
        return sum;
    }
}
