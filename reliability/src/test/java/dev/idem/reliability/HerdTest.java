package dev.idem.reliability;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.ChildJvm;
import dev.idem.testsupport.RedisServerProcess;
import dev.idem.testsupport.TestPostgres;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The herd, then a scan of what it left. {@value #JVMS} separate JVMs ({@link HerdWorker}) of {@value #THREADS}
 * threads each, released together (each prints READY, the test writes GO to all), call one idempotent operation
 * with one argument: {@value #JVMS} x {@value #THREADS} concurrent callers of one key. Asserted: the body ran
 * exactly once (one row in a PostgreSQL side-effect table) and every caller got that one execution's result.
 * The execution holds until every JVM's claim has reached the store ({@link HerdWorker}), so the other JVMs meet the claim
 * in progress. Printed: the store commands per caller (Redis: {@code INFO commandstats} deltas of a redis-server the test owns;
 * PostgreSQL: statements counted by a counting DataSource in each worker).
 *
 * <p>Then a few more calls with distinctive arguments ({@code SECRET-ARG-<uuid>}, alone, beside a number, in a list,
 * in a map), and every row (all columns) and every key (all fields and values) the suite wrote is read back: no
 * argument appears in clear. The body returns a fresh value that never echoes its argument, so any argument found
 * was stored by Idem, not by the method.
 */
class HerdTest {
    static final int JVMS = 4;
    static final int THREADS = 250;
    static final int CALLERS = JVMS * THREADS;
    /**
     * Commands of the observers, not of the store: the execution's probes of the server's script calls open a
     * connection (HELLO) and ask INFO; the engines' own connections are opened before GO, by their warm-up call.
     */
    private static final Set<String> OBSERVATION = Set.of("info", "hello");

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void postgresHerdRunsOnceAndStoresNoArgument() throws Exception {
        String pg = TestPostgres.url();
        String table = "idem_rel_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String side = table + "_side";
        JdbcIdempotencyStore.builder(pg).table(table).createTable(true).build().close();
        try {
            createSideTable(pg, side);
            String arg = secret("herd");
            Herd herd = Herd.run(pg, side, arg, "store=jdbc", "table=" + table);
            herd.print("postgres", "SQL statements the store executed, counted by a DataSource wrapper in each worker: "
                    + herd.statements + " = " + perCaller(herd.statements) + " per caller");
            herd.assertExactlyOnce(pg, side);

            List<String> arguments = new ArrayList<>(List.of(arg));
            arguments.addAll(callWithSecrets(IdemSettings.custom().namespace("reliability").defaultStore("jdbc")
                    .property("idem.jdbc.url", pg).property("idem.jdbc.table", table).build()));
            assertNoArgumentStored(StoredData.ofTable(pg, table), "rows of " + table, arguments, herd.result);
        } finally {
            try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                s.execute("DROP SEQUENCE IF EXISTS " + table + "_tokens");
                s.execute("DROP TABLE IF EXISTS " + side);
                s.execute("DROP TABLE IF EXISTS " + side + "_arrivals");
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void redisHerdRunsOnceAndStoresNoArgument() throws Exception {
        String pg = TestPostgres.url();
        String side = "idem_rel_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12) + "_side";
        try (RedisServerProcess redis = RedisServerProcess.start("the reliability suite's Redis tests are")) {
            createSideTable(pg, side);
            RedisClient client = RedisClient.create(redis.uri());
            Map<String, Long> before;
            Map<String, Long> after;
            String arg = secret("herd");
            Herd herd;
            try (StatefulRedisConnection<String, String> info = client.connect()) {
                herd = Herd.run(pg, side, arg, "store=redis", "redis=" + redis.uri());
                before = herd.commandStatsAtGo;
                after = commandStats(info.sync().info("commandstats"));
            } finally {
                client.shutdown();
            }
            Map<String, Long> delta = new TreeMap<>();
            after.forEach((command, calls) -> {
                long d = calls - before.getOrDefault(command, 0L);
                if (d > 0 && !OBSERVATION.contains(command)) {
                    delta.put(command, d);
                }
            });
            long total = delta.values().stream().mapToLong(Long::longValue).sum();
            herd.print("redis", "Redis commands (INFO commandstats deltas of the test's own redis-server from GO to "
                    + "the end, without " + OBSERVATION + ", the execution's probes): " + delta + " = " + total + " = " + perCaller(total) + " per caller");
            herd.assertExactlyOnce(pg, side);

            List<String> arguments = new ArrayList<>(List.of(arg));
            arguments.addAll(callWithSecrets(IdemSettings.custom().namespace("reliability").defaultStore("redis")
                    .property("idem.redis.uri", redis.uri()).build()));
            assertNoArgumentStored(StoredData.ofRedis(redis.uri()), "keys of the test's redis-server", arguments,
                    herd.result);
        } finally {
            try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + side);
                s.execute("DROP TABLE IF EXISTS " + side + "_arrivals");
            }
        }
    }

    /** What the herd's workers reported. */
    private static final class Herd {
        final Map<String, Long> results = new HashMap<>();
        long errors;
        long statements;
        long millis;
        String result;
        Map<String, Long> commandStatsAtGo = Map.of();

        /** Starts the workers, waits for all to be READY, releases them at once, and collects their reports. */
        static Herd run(String pg, String side, String arg, String... storeArgs) throws Exception {
            Herd herd = new Herd();
            String scope = "reliability:herd-" + UUID.randomUUID();
            List<ChildJvm> workers = new ArrayList<>();
            try {
                for (int i = 0; i < JVMS; i++) {
                    List<String> args = new ArrayList<>(List.of("pg=" + pg, "side=" + side, "scope=" + scope,
                            "jvms=" + JVMS, "threads=" + THREADS, "arg=" + arg));
                    args.addAll(List.of(storeArgs));
                    workers.add(ChildJvm.of(HerdWorker.class)
                            .jvmOptions("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                            .args(args.toArray(String[]::new)).start());
                }
                for (ChildJvm w : workers) {
                    w.await("READY", Duration.ofSeconds(60));
                }
                for (String a : storeArgs) {
                    if (a.startsWith("redis=")) {
                        herd.commandStatsAtGo = redisCommandStats(a.substring("redis=".length()));
                    }
                }
                long start = System.nanoTime();
                String go = "GO " + herd.commandStatsAtGo.getOrDefault("evalsha", 0L);
                for (ChildJvm w : workers) {
                    w.send(go);
                }
                for (ChildJvm w : workers) {
                    for (String line : w.finish(Duration.ofSeconds(90))) {
                        String[] parts = line.split(" ");
                        switch (parts[0]) {
                            case "RESULT" -> herd.results.merge(parts[2], Long.parseLong(parts[1]), Long::sum);
                            case "ERRORS" -> herd.errors += Long.parseLong(parts[1]);
                            case "STATEMENTS" -> herd.statements += Long.parseLong(parts[1]);
                            default -> {
                            }
                        }
                    }
                }
                herd.millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            } finally {
                for (ChildJvm w : workers) {
                    w.close();
                }
            }
            return herd;
        }

        void print(String store, String commands) {
            System.out.printf(Locale.ROOT, "HERD %s: %d JVMs x %d threads = %d callers of one key; results %s; "
                            + "errors %d; GO to last worker done %d ms (not asserted)%n  %s%n", store, JVMS, THREADS,
                    CALLERS, results, errors, millis, commands);
        }

        void assertExactlyOnce(String pg, String side) throws Exception {
            List<String> executions = new ArrayList<>();
            try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT result FROM " + side)) {
                while (rs.next()) {
                    executions.add(rs.getString(1));
                }
            }
            System.out.println("  executions (rows in the side-effect table): " + executions.size());
            assertEquals(0, errors, "no caller failed; see the workers' stderr under target/workers");
            assertEquals(1, executions.size(), "exactly one execution for " + CALLERS + " callers: " + executions);
            result = executions.get(0);
            assertEquals(Map.of(result, (long) CALLERS), results, "every caller got the one execution's result");
        }
    }

    /**
     * A few calls through an engine of this JVM with distinctive arguments: alone, beside a number, in a list, in a
     * map, one of them twice (a replay). Returns the argument values.
     */
    private static List<String> callWithSecrets(IdemSettings settings) throws Exception {
        List<String> secrets = List.of(secret("alone"), secret("beside"), secret("listed"), secret("mapped"));
        try (IdemEngine engine = IdemEngine.create(settings)) {
            IdempotentOperation<String> op = engine.operation(IdempotencyPolicy.custom()
                    .operation("HerdTest#secrets").scope("reliability:secrets").ttl("10m").build(), String.class);
            op.call(HerdTest::fresh, secrets.get(0));
            op.call(HerdTest::fresh, secrets.get(0));
            op.call(HerdTest::fresh, secrets.get(1), 4242);
            op.call(HerdTest::fresh, List.of(secrets.get(2), "other"));
            op.call(HerdTest::fresh, Map.of("card", secrets.get(3)));
        }
        return secrets;
    }

    private static void assertNoArgumentStored(StoredData stored, String what, List<String> arguments,
                                               String herdResult) {
        System.out.println("SCAN " + what + ": " + stored.entries() + " entries, " + stored.pieces()
                + " pieces (columns, names, fields, values) read; looked for " + arguments.size() + " argument values");
        // The scan reads the values for real: the stored result, which the method returned, is found in it.
        assertFalse(stored.whereContained(herdResult).isEmpty(), "the scan finds the herd's stored result");
        for (String argument : arguments) {
            assertTrue(stored.whereContained(argument).isEmpty(),
                    argument + " is stored in clear in " + stored.whereContained(argument));
        }
    }

    private static String secret(String where) {
        return "SECRET-ARG-" + where + "-" + UUID.randomUUID();
    }

    private static String fresh() {
        return "made-" + UUID.randomUUID();
    }

    private static String perCaller(long count) {
        return String.format(Locale.ROOT, "%.3f", (double) count / CALLERS);
    }

    private static void createSideTable(String pg, String side) throws Exception {
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + side + " (result VARCHAR(100) NOT NULL)");
            s.execute("CREATE TABLE " + side + "_arrivals (pid BIGINT NOT NULL)");
        }
    }

    private static Map<String, Long> redisCommandStats(String uri) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return commandStats(c.sync().info("commandstats"));
        } finally {
            client.shutdown();
        }
    }

    /** {@code cmdstat_evalsha:calls=3,usec=...} lines as command -> calls. */
    static Map<String, Long> commandStats(String info) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                String count = line.substring(line.indexOf("calls=") + 6);
                calls.put(command, Long.parseLong(count.substring(0, count.indexOf(','))));
            }
        }
        return calls;
    }
}
