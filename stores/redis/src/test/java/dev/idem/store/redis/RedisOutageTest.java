package dev.idem.store.redis;

import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyStoreException;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.testsupport.CapturedLog;
import dev.idem.testsupport.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Redis this test owns, killed in the middle of a run and started again on the same port, under two engines (as
 * two processes) that are never restarted. Their waiters re-check only after a minute, past their wait timeout, so
 * a waiter that ends early was woken by the store.
 */
class RedisOutageTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** The result that cannot be saved is a warning an operator must see; asserted here, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Reports#build")
            .scope("outage-" + UUID.randomUUID().toString().substring(0, 8) + ":reports")
            .waitTimeout(Duration.ofSeconds(20)).build();

    private static IdemEngine engine(String uri) {
        return IdemEngine.create(IdemSettings.fromProperties(Map.of("idem.store", "redis", "idem.redis.uri", uri,
                "idem.redis.timeout", TIMEOUT.toMillis() + "ms", "idem.waitRecheck", "60s")));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aServerKilledMidRunFailsCallsClosedRunsNothingTwiceAndServesAgainOnceRestarted() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try (RedisServerProcess server = RedisServerProcess.start("the outage test (it kills a server of its own) is");
             IdemEngine one = engine(server.uri()); IdemEngine two = engine(server.uri())) {
            IdempotentOperation<String> viaOne = one.operation(policy, String.class);
            IdempotentOperation<String> viaTwo = two.operation(policy, String.class);

            // An execution in progress through one engine, and a caller of the other waiting for it.
            Waited held = new Waited(threads, server.uri(), viaOne, viaTwo, "held");

            server.kill();

            ExecutionException waited = assertThrows(ExecutionException.class,
                    () -> held.waiter.get(60, TimeUnit.SECONDS), "the waiter ends, long before its re-check");
            assertInstanceOf(IdempotencyStoreException.class, waited.getCause(), "fail-closed");
            // New calls while the server is down: every one refused, none runs.
            List<Future<String>> refused = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                IdempotentOperation<String> via = i % 2 == 0 ? viaOne : viaTwo;
                String key = "fresh-" + i % 8;
                refused.add(threads.submit(() -> via.call(counted(key, () -> key + " ran"), key)));
            }
            for (Future<String> call : refused) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(60, TimeUnit.SECONDS));
                assertInstanceOf(IdempotencyStoreException.class, e.getCause(), "fail-closed while down");
            }
            assertEquals(Map.of("held", 1), counts(), "nothing ran while the server was down");
            held.finish.countDown();
            assertEquals("held result", held.owner.get(60, TimeUnit.SECONDS),
                    "the execution that was running returns its result, though it cannot be saved");
            log.assertLogged(Level.WARNING, "INDETERMINATE Reports#build");

            server.startAgain();
            // Each store refuses calls at once until its background probe reconnects (within its back-off of the
            // restart): wait until both serve, with a key of their own (it runs once, then is replayed).
            for (IdempotentOperation<String> via : List.of(viaOne, viaTwo)) {
                while (true) {
                    try {
                        assertEquals("back ran", via.call(counted("back", () -> "back ran"), "back"));
                        break;
                    } catch (IdempotencyStoreException stillReconnecting) {
                        Thread.sleep(20);
                    }
                }
            }

            // The same engines serve again: each key runs once through either, and the other replays it.
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                IdempotentOperation<String> via = i % 2 == 0 ? viaOne : viaTwo;
                String key = "fresh-" + i % 8;
                calls.add(threads.submit(() -> via.call(counted(key, () -> key + " ran"), key)));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertEquals("fresh-" + i % 8 + " ran", calls.get(i).get(60, TimeUnit.SECONDS));
            }
            // And a waiter is woken again: the wake-ups' connection came back with the server.
            Waited again = new Waited(threads, server.uri(), viaOne, viaTwo, "again");
            again.finish.countDown();
            assertEquals("again result", again.owner.get(60, TimeUnit.SECONDS));
            assertEquals("again result", again.waiter.get(60, TimeUnit.SECONDS), "woken by the message");

            Map<String, Integer> expected = new java.util.TreeMap<>(Map.of("held", 1, "again", 1, "back", 1));
            for (int i = 0; i < 8; i++) {
                expected.put("fresh-" + i, 1);
            }
            assertEquals(expected, counts(), "no key ran twice");
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * {@code key} running through {@code owning} until {@link #finish}, returning "{@code key} result", and a caller
     * through {@code waiting} whose watch of it is open when this returns.
     */
    private final class Waited {
        final CountDownLatch finish = new CountDownLatch(1);
        final Future<String> owner;
        Future<String> waiter;

        Waited(ExecutorService threads, String uri, IdempotentOperation<String> owning,
               IdempotentOperation<String> waiting, String key) throws InterruptedException {
            CountDownLatch running = new CountDownLatch(1);
            AtomicReference<String> fullKey = new AtomicReference<>();
            owner = threads.submit(() -> owning.call(counted(key, () -> {
                fullKey.set(IdempotencyContext.current().orElseThrow().key());
                running.countDown();
                assertTrue(finish.await(60, TimeUnit.SECONDS));
                return key + " result";
            }), key));
            assertTrue(running.await(30, TimeUnit.SECONDS));
            Callable<String> wait = () -> waiting.call(counted(key, () -> "ran twice"), key);
            waiter = threads.submit(wait);
            // Shortly after an outage the wake-ups may still refuse to subscribe (they fail at once for a timeout
            // after a failed connection attempt): the caller is refused, and a new one is sent.
            String channel = new String(ScriptArguments.redisKeys(fullKey.get())[0], StandardCharsets.UTF_8);
            while (!awaitSubscriber(uri, channel, waiter)) {
                ExecutionException refused = assertThrows(ExecutionException.class, waiter::get);
                assertInstanceOf(IdempotencyStoreException.class, refused.getCause());
                waiter = threads.submit(wait);
            }
        }
    }

    private Callable<String> counted(String key, Callable<String> body) {
        return () -> {
            runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            return body.call();
        };
    }

    private Map<String, Integer> counts() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        runs.forEach((key, n) -> counts.put(key, n.get()));
        return counts;
    }

    /**
     * Waits until the server has a subscriber on {@code channel} (the waiter's watch is open: true), or the waiter
     * ended without one (false).
     */
    private static boolean awaitSubscriber(String uri, String channel, Future<String> waiter)
            throws InterruptedException {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (admin.sync().pubsubShardNumsub(channel).getOrDefault(channel, 0L) == 0) {
                if (waiter.isDone()) {
                    return false;
                }
                assertTrue(System.nanoTime() < deadline, "the waiter never subscribed to " + channel);
                Thread.sleep(20);
            }
            return true;
        } finally {
            client.shutdown();
        }
    }
}
