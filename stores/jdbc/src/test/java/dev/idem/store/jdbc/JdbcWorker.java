package dev.idem.store.jdbc;

import dev.idem.IdempotencyContext;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.testsupport.ChildJvm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A separate JVM of the cross-process suites: an application with an engine over the jdbc store, calling one
 * idempotent operation through the programmatic API. It reports on standard output, one line per fact, which the
 * test reads: {@code READY}, {@code RESULT <key> <result>}, {@code EVENT <type> <key> <token>},
 * {@code STARTED <key> <full key> <token>}, {@code DONE}.
 *
 * <p>Arguments: {@code mode key=value...}; every mode takes {@code url}, {@code table}, {@code scope},
 * {@code lease} (ms). Modes:
 * <ul>
 *   <li>{@code race}: waits for {@code go} on standard input, then {@code threads} threads each call every key
 *       {@code k0..k<keys-1>} in their own order; an execution inserts a row into {@code side} (key, the result) and
 *       returns a new result.
 *   <li>{@code hold}: {@code threads} threads claim keys {@code k0..k<threads-1>}; each execution reports
 *       {@code STARTED} with its token and never returns (the test kills the JVM).
 *   <li>{@code run}: calls {@code key} once; the execution reports {@code STARTED}, sleeps {@code work} ms (the
 *       method's own duration) and returns a new result, which is also written to {@code side} when given.
 * </ul>
 */
public final class JdbcWorker {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private JdbcWorker() {
    }

    /**
     * {@return this worker in a JVM of its own, from the test's class path, running {@code mode args...}}
     *
     * @param mode {@code race}, {@code hold} or {@code run}
     * @param args its {@code key=value} arguments
     */
    static ChildJvm start(String mode, String... args) {
        return ChildJvm.of(JdbcWorker.class).name(mode).jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
                .systemProperty("java.io.tmpdir", System.getProperty("java.io.tmpdir")).args(mode).args(args).start();
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Map<String, String> a = Stream.of(args).skip(1).map(s -> s.split("=", 2))
                .collect(Collectors.toMap(p -> p[0], p -> p[1]));
        String url = a.get("url");
        IdemSettings settings = IdemSettings.custom().namespace("suite").defaultStore("jdbc")
                .property("idem.jdbc.url", url).property("idem.jdbc.table", a.get("table"))
                .listener(e -> {
                    if (e.type() == IdempotencyEventType.TAKEOVER || e.type() == IdempotencyEventType.LEASE_LOST) {
                        report("EVENT " + e.type() + " " + e.key() + " " + e.fencingToken());
                    }
                })
                .build();
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("JdbcWorker#" + mode).scope(a.get("scope"))
                .lease(a.getOrDefault("lease", "30000") + "ms").ttl("10m").waitTimeout("30s").build();
        try (IdemEngine engine = IdemEngine.create(settings)) {
            IdempotentOperation<String> op = engine.operation(policy, String.class);
            switch (mode) {
                case "race" -> race(op, url, a.get("side"), Integer.parseInt(a.get("keys")),
                        Integer.parseInt(a.get("threads")));
                case "hold" -> hold(op, Integer.parseInt(a.get("threads")));
                case "run" -> {
                    String key = a.get("key");
                    long work = Long.parseLong(a.getOrDefault("work", "0"));
                    String result = op.call(() -> {
                        started(key);
                        Thread.sleep(work);
                        String made = "made-" + UUID.randomUUID();
                        if (a.containsKey("side")) {
                            sideEffect(url, a.get("side"), key, made);
                        }
                        return made;
                    }, key);
                    report("RESULT " + key + " " + result);
                }
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        }
        report("DONE");
    }

    private static void race(IdempotentOperation<String> op, String url, String side, int keys, int threads)
            throws Exception {
        report("READY");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            if (!"go".equals(in.readLine())) {
                throw new IllegalStateException("expected go");
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<String> order = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                order.add("k" + k);
            }
            Collections.shuffle(order);
            done.add(pool.submit(() -> {
                for (String key : order) {
                    String result = op.call(() -> {
                        String made = "made-" + UUID.randomUUID();
                        sideEffect(url, side, key, made);
                        return made;
                    }, key);
                    report("RESULT " + key + " " + result);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
    }

    private static void hold(IdempotentOperation<String> op, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            String key = "k" + t;
            pool.submit(() -> op.call(() -> {
                started(key);
                new CountDownLatch(1).await(); // held until the JVM is killed
                return "never";
            }, key));
        }
        pool.awaitTermination(1, TimeUnit.HOURS);
    }

    /** Reports the running execution: its short key, full key and fencing token. */
    private static void started(String key) {
        IdempotencyContext context = IdempotencyContext.current().orElseThrow();
        report("STARTED " + key + " " + context.key() + " " + context.fencingToken());
    }

    private static void sideEffect(String url, String side, String key, String result) throws Exception {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + side + " (k, result) VALUES (?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, result);
            ps.executeUpdate();
        }
    }

    private static void report(String line) {
        OUT.println(line);
    }
}
