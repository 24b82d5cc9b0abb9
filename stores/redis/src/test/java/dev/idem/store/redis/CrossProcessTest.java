package dev.idem.store.redis;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.testsupport.ChildJvm;
import dev.idem.testsupport.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Separate JVMs ({@link CrossProcessCaller}, on this test's class path) sharing work through a Redis this test owns,
 * so that {@code INFO commandstats} counts their commands and nobody else's.
 */
class CrossProcessTest {
    private static final int PROCESSES = 4;
    private static final int THREADS = 8;
    private static final int KEYS = 200;
    private static RedisServerProcess server;
    private static RedisClient adminClient;
    private static StatefulRedisConnection<String, String> admin;

    @BeforeAll
    static void startRedis() throws Exception {
        server = RedisServerProcess.start("the cross-process tests (they count commands on a server of their own) are");
        adminClient = RedisClient.create(server.uri());
        admin = adminClient.connect();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        try {
            if (adminClient != null) {
                admin.close();
                adminClient.shutdown();
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    /** A {@link CrossProcessCaller} in a JVM of its own, from the test's class path. */
    private static ChildJvm caller(String... args) {
        return ChildJvm.of(CrossProcessCaller.class).jvmOptions("-Xmx128m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1").args(args).start();
    }

    private static String scope() {
        return "xproc-" + UUID.randomUUID().toString().substring(0, 8) + ":reports";
    }

    /**
     * 4 JVMs x 8 threads x the same 200 keys: 200 executions, and every caller gets its key's one result. The
     * waiters are woken by the message their key's completion publishes: their re-check ({@code idem.waitRecheck})
     * is set to a minute, past their wait timeout, so a waiter nobody woke would fail; and counting the claims each
     * process sent and the subscriptions the server opened shows each wait cost two claims (the one after opening its watch and the one after the message)
     * however long it lasted, where polling every 5 ms doubling would cost one per pause. Each execution returns once
     * another process waits for it (or after three seconds), so that waits happen however the processes drift.
     */
    @Test
    @Timeout(value = 400, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void fourProcessesOfEightThreadsRunEachOf200KeysOnceAndWaitersAreWokenByTheMessage() throws Exception {
        String scope = scope();
        warmUp(); // the scripts are loaded before counting, so no NOSCRIPT answer is counted
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int p = 0; p < PROCESSES; p++) {
                children.add(caller("share", server.uri(), scope,
                        Integer.toString(THREADS), Integer.toString(KEYS), "60s"));
            }
            for (ChildJvm child : children) {
                // JVM start and a first call: half a second on an idle machine, far more on a shared, busy one.
                child.awaitLines("READY", 1, Duration.ofSeconds(150));
            }
            Map<String, Long> before = commandCalls();
            for (ChildJvm child : children) {
                child.send("GO");
            }
            for (ChildJvm child : children) {
                child.awaitExit(Duration.ofSeconds(150));
                assertEquals(List.of(""), child.lines("DONE"), child::toString);
            }
            Map<String, Long> after = commandCalls();

            List<String> errors = children.stream().flatMap(c -> c.lines("ERROR ").stream()).toList();
            assertEquals(List.of(), errors, "no caller failed");
            Map<String, List<String>> ran = children.stream().flatMap(c -> c.lines("RAN ").stream())
                    .collect(Collectors.groupingBy(l -> l.split(" ")[0], TreeMap::new, Collectors.toList()));
            assertEquals(KEYS, ran.size(), "every key ran");
            ran.forEach((key, runs) -> assertEquals(1, runs.size(), () -> key + " ran more than once: " + runs));
            Map<String, List<String>> results = new HashMap<>();
            for (ChildJvm child : children) {
                List<String> own = child.lines("RESULT ");
                assertEquals(THREADS * KEYS, own.size(), "every call of every thread returned");
                own.forEach(l -> results.computeIfAbsent(l.split(" ")[0], k -> new ArrayList<>()).add(l.split(" ")[1]));
            }
            results.forEach((key, values) -> {
                assertEquals(PROCESSES * THREADS, values.size(), key);
                String token = ran.get(key).get(0).split(" ")[1];
                assertTrue(values.stream().allMatch(v -> v.equals(values.get(0)) && v.endsWith("/" + token)),
                        () -> "every caller of " + key + " gets the one execution's result: " + values);
            });

            // One leader per key in each process claims (the other threads of a process join it or replay its
            // result): 800 first claims. Every other claim was a waiting caller's (counted by the processes
            // themselves: the store gathers concurrent claims into one script call, so the server's count of calls
            // is not theirs); every wait opened one subscription, counted by the server.
            long claims = children.stream().mapToLong(c -> Long.parseLong(c.lines("CLAIMS ").get(0))).sum();
            long waits = delta(before, after, "ssubscribe");
            long claimsWhileWaiting = claims - PROCESSES * KEYS;
            // A wait whose claim after opening the watch found the execution still running claimed once more, when
            // woken; with the re-check past the wait timeout, only the message can have woken it.
            long woken = claimsWhileWaiting - waits;
            System.out.println("cross-process: " + claims + " claims in " + delta(before, after, "evalsha")
                    + " script calls, " + waits + " waits, " + claimsWhileWaiting + " claims while waiting, " + woken
                    + " waiters woken by a message, " + delta(before, after, "spublish")
                    + " messages published; executions per process: "
                    + children.stream().map(c -> c.lines("RAN ").size()).toList());
            assertEquals(KEYS, delta(before, after, "spublish"), "each completion published one message");
            assertTrue(waits >= KEYS / 2, "callers waited for another process's execution: " + waits);
            assertTrue(woken > 0, "some callers waited for another process's execution and were woken");
            assertTrue(claimsWhileWaiting <= 2 * waits, () -> claimsWhileWaiting + " claims in " + waits
                    + " waits: a wait claims once after opening its watch and once when woken, never more");
        } finally {
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }

    /**
     * A process killed while it holds claims: once their lease passes, two other processes take each key over
     * exactly once, with a larger fencing token, and a late completion carrying the dead owner's token is refused.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aKilledOwnersKeysAreTakenOverOnceAfterTheLeaseAndItsLateCompletionIsRefused() throws Exception {
        String scope = scope();
        int keys = 6;
        Map<String, Long> deadTokens = new TreeMap<>();
        try (ChildJvm owner = caller("hold", server.uri(), scope,
                Integer.toString(keys), Integer.toString(keys), "PT2S")) {
            owner.awaitLines("HOLDING ", keys, Duration.ofSeconds(120));
            owner.lines("HOLDING ").forEach(l -> deadTokens.put(l.split(" ")[0], Long.valueOf(l.split(" ")[1])));
            owner.kill();
        }
        List<ChildJvm> takers = new ArrayList<>();
        try {
            for (int p = 0; p < 2; p++) {
                takers.add(caller("takeover", server.uri(), scope,
                        Integer.toString(keys), Integer.toString(keys), "PT2S", "200ms"));
            }
            for (ChildJvm taker : takers) {
                taker.awaitExit(Duration.ofSeconds(150));
                assertEquals(List.of(), taker.lines("ERROR "), taker::toString);
            }
            Map<String, List<Long>> ran = takers.stream().flatMap(t -> t.lines("RAN ").stream()).collect(
                    Collectors.groupingBy(l -> l.split(" ")[0], TreeMap::new,
                            Collectors.mapping(l -> Long.valueOf(l.split(" ")[1]), Collectors.toList())));
            assertEquals(deadTokens.keySet(), ran.keySet(), "every held key was taken over");
            ran.forEach((key, tokens) -> {
                assertEquals(1, tokens.size(), () -> key + " was taken over more than once: " + tokens);
                assertTrue(tokens.get(0) > deadTokens.get(key), key + ": the takeover's token is larger");
            });
            takers.forEach(t -> assertEquals(keys, t.lines("RESULT ").size(), t::toString));

            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(server.uri()).build()) {
                for (Map.Entry<String, Long> held : deadTokens.entrySet()) {
                    String key = keyOf(store, scope, held.getKey());
                    IdempotencyRecord record = store.get(key).orElseThrow();
                    assertEquals(RecordState.COMPLETED, record.state());
                    assertFalse(store.complete(key, held.getValue(), new byte[] {9}, Duration.ofMinutes(1)),
                            "a late completion with the dead owner's token is refused");
                    assertArrayEquals(record.result(), store.get(key).orElseThrow().result(), "and changes nothing");
                }
            }
        } finally {
            for (ChildJvm taker : takers) {
                taker.close();
            }
        }
    }

    /** The full key of the call {@code Reports#build(keyValue)} in {@code scope}: the record whose result is its. */
    private static String keyOf(RedisIdempotencyStore store, String scope, String keyValue) {
        // The engine derives the key (a hash of the arguments); each record carries it, and its result names the call.
        for (String redisKey : admin.sync().keys("idem:{???}:" + "?".repeat(32))) { // records, not counters
            // The record holds its key among its fields (Scripts): the store's own parser reads it.
            String key;
            try (StatefulRedisConnection<byte[], byte[]> raw = adminClient.connect(ByteArrayCodec.INSTANCE)) {
                key = RecordFormat.record(raw.sync().get(redisKey.getBytes(StandardCharsets.UTF_8))).key();
            }
            IdempotencyRecord record = key == null || !key.contains(":" + scope + ":") ? null
                    : store.get(key).orElse(null);
            if (record != null && record.result() != null
                    && new String(record.result(), StandardCharsets.ISO_8859_1).contains(keyValue + "@")) {
                return key;
            }
        }
        throw new AssertionError("no record of " + keyValue + " in " + scope);
    }

    /** Runs each script once on a throwaway key, so the server has them all loaded. */
    private static void warmUp() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(server.uri()).build()) {
            String key = "idem:warm-up:" + UUID.randomUUID();
            ClaimRequest claim = new ClaimRequest(key, "h", "warm-up", Duration.ofSeconds(5), Duration.ZERO);
            long token = ((ClaimOutcome.Acquired) store.claim(claim)).fencingToken();
            store.release(key, token);
            token = ((ClaimOutcome.Acquired) store.claim(claim)).fencingToken();
            store.complete(key, token, new byte[] {1}, Duration.ofSeconds(5));
            store.delete(key);
        }
    }

    /** Calls per command from {@code INFO commandstats}. */
    private static Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        for (String line : admin.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String stats = line.substring(line.indexOf(':') + 1);
                for (String stat : stats.split(",")) {
                    if (stat.startsWith("calls=")) {
                        calls.put(name, Long.valueOf(stat.substring("calls=".length())));
                    }
                }
            }
        }
        return calls;
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }
}
