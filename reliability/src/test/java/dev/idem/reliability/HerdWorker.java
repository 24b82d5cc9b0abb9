package dev.idem.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One JVM of the herd ({@link HerdTest}), started on the test's class path: an application with an engine over the
 * {@code jdbc} or {@code redis} store whose {@code threads} threads all call one idempotent operation (the
 * programmatic API, the engine path an {@code @Idempotent} method takes) with the same argument, released together.
 * The operation's body inserts a row into a PostgreSQL side-effect table and returns a fresh value that does not
 * echo its argument.
 *
 * <p>Arguments {@code key=value}: {@code store} (jdbc or redis), {@code pg} (PostgreSQL URL: side table, and the
 * records for jdbc), {@code table} (jdbc records table), {@code redis} (Redis URI), {@code side}, {@code scope},
 * {@code jvms}, {@code threads}, {@code arg}. Output lines: {@code READY} once warm (one call of its own on another key), then
 * after {@code GO} on standard input ({@code GO <n>} for redis: the server's script calls so far): {@code RESULT <count> <value>} per distinct result, {@code ERRORS <count>},
 * {@code STATEMENTS <count>} (jdbc: SQL statements the store executed for the herd's calls), {@code DONE}.
 */
public final class HerdWorker {
    /** The longest the execution waits for every JVM's claim to reach the store. */
    private static final long WAIT_FOR_CLAIMS = TimeUnit.SECONDS.toNanos(10);
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private HerdWorker() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = Stream.of(args).map(s -> s.split("=", 2))
                .collect(Collectors.toMap(p -> p[0], p -> p[1]));
        String pg = a.get("pg");
        int threads = Integer.parseInt(a.get("threads"));
        int jvms = Integer.parseInt(a.get("jvms"));
        IdemSettings.Builder settings = IdemSettings.custom().namespace("reliability");
        CountingDataSource counting = null;
        HikariDataSource pool = null;
        if (a.get("store").equals("jdbc")) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(pg);
            config.setMaximumPoolSize(4); // four JVMs share a PostgreSQL that others use too
            pool = new HikariDataSource(config);
            counting = new CountingDataSource(pool);
            settings.store("jdbc", JdbcIdempotencyStore.builder(counting.dataSource()).table(a.get("table")).build())
                    .defaultStore("jdbc");
        } else {
            settings.defaultStore("redis").property("idem.redis.uri", a.get("redis"))
                    .property("idem.redis.timeout", "10s");
        }
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("HerdWorker#charge").scope(a.get("scope"))
                .lease("30s").ttl("10m").waitTimeout("60s").build();
        try (IdemEngine engine = IdemEngine.create(settings.build())) {
            IdempotentOperation<String> op = engine.operation(policy, String.class);
            op.call(() -> "warm", "warm-" + ProcessHandle.current().pid()); // classes loaded, connections open
            if (counting != null) {
                counting.reset();
            }
            OUT.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String go = in.readLine();
            if (go == null || !go.startsWith("GO")) {
                throw new IllegalStateException("expected GO");
            }
            BooleanSupplier everyJvmClaimed;
            if (counting != null) {
                CountingDataSource store = counting;
                Thread reporter = new Thread(() -> arriveOnceAnswered(store, pg, a.get("side")), "arrival");
                reporter.setDaemon(true);
                reporter.start();
                everyJvmClaimed = () -> arrivals(pg, a.get("side")) >= jvms;
            } else {
                long claimsBefore = Long.parseLong(go.substring("GO ".length()));
                everyJvmClaimed = () -> redisScriptCalls(a.get("redis")) - claimsBefore >= jvms;
            }
            Map<String, LongAdder> results = new ConcurrentHashMap<>();
            LongAdder errors = new LongAdder();
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService callers = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(callers.submit(() -> {
                    start.await();
                    try {
                        String result = op.call(() -> execute(pg, a.get("side"), everyJvmClaimed), a.get("arg"));
                        results.computeIfAbsent(result, r -> new LongAdder()).increment();
                    } catch (Exception e) {
                        errors.increment();
                        e.printStackTrace();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
            callers.shutdown();
            new TreeMap<>(results).forEach((value, count) -> OUT.println("RESULT " + count.sum() + " " + value));
            OUT.println("ERRORS " + errors.sum());
            OUT.println("STATEMENTS " + (counting == null ? -1 : counting.executed()));
        } finally {
            if (pool != null) {
                pool.close();
            }
        }
        OUT.println("DONE");
    }

    /**
     * Once the store has answered this JVM's first claim after GO (a statement has returned), says so: a row in the
     * side table's arrivals table.
     */
    private static void arriveOnceAnswered(CountingDataSource store, String pg, String side) {
        try {
            long deadline = System.nanoTime() + WAIT_FOR_CLAIMS;
            while (store.executed() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            try (Connection c = DriverManager.getConnection(pg);
                 PreparedStatement insert = c.prepareStatement("INSERT INTO " + side + "_arrivals (pid) VALUES (?)")) {
                insert.setLong(1, ProcessHandle.current().pid());
                insert.executeUpdate();
            }
        } catch (Exception e) {
            e.printStackTrace(); // the execution then waits its bound out: slower, never wrong
        }
    }

    private static int arrivals(String pg, String side) {
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + side + "_arrivals")) {
            rs.next();
            return rs.getInt(1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Script calls (the redis store's claims and completions) the server has served so far. */
    static long redisScriptCalls(String uri) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return HerdTest.commandStats(c.sync().info("commandstats")).getOrDefault("evalsha", 0L);
        } finally {
            client.shutdown();
        }
    }

    /**
     * The one execution: waits (at most {@link #WAIT_FOR_CLAIMS}) until every JVM's claim has reached the store, so
     * the other JVMs meet the claim in progress rather than a finished record (on two busy cores JVMs drift apart,
     * and a body of fixed length would leave that to chance); then the side effect, a row in the side table holding
     * the fresh result, which is also returned.
     */
    private static String execute(String pg, String side, BooleanSupplier everyJvmClaimed) throws Exception {
        long deadline = System.nanoTime() + WAIT_FOR_CLAIMS;
        while (!everyJvmClaimed.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        String made = "made-" + UUID.randomUUID();
        try (Connection c = DriverManager.getConnection(pg);
             PreparedStatement insert = c.prepareStatement("INSERT INTO " + side + " (result) VALUES (?)")) {
            insert.setString(1, made);
            insert.executeUpdate();
        }
        return made;
    }
}
