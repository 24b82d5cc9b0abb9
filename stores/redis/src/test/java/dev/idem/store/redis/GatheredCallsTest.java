package dev.idem.store.redis;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.tck.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concurrent claims and completions gathered into one script call ({@link ScriptBatcher}), on a redis-server of the
 * test's own: while a call is on its way, the next callers' items queue and leave together in one call, each applied
 * as if alone; and a call that fails fails each of its callers, and those queued behind it, without blocking the
 * store. The call on its way is held by the server sleeping ({@code DEBUG SLEEP}, sent just before it on the store's
 * connection), and the test watches the batcher's own state, so which call carries which item is decided by the test.
 */
class GatheredCallsTest {
    private static final int QUEUED = 20;
    /**
     * How long the server sleeps while a call is on its way: ample for 21 threads to queue their claims (or to time
     * out) on a loaded machine; each step is then checked, not assumed.
     */
    private static final int SLEEP_SECONDS = 10;
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static RedisServerProcess server;
    private static RedisClient adminClient;
    private static StatefulRedisConnection<String, String> adminConnection;
    private static RedisCommands<String, String> admin;

    @BeforeAll
    static void start() throws Exception {
        server = RedisServerProcess.start(RedisServerProcess.binaryOrSkip("the gathering test (it puts a server of its"
                + " own to sleep) is"), "redis-gather", RedisServerProcess.freePort(), List.of(),
                List.of("--enable-debug-command", "yes"));
        adminClient = RedisClient.create(server.uri());
        adminConnection = adminClient.connect();
        admin = adminConnection.sync();
    }

    @AfterAll
    static void stop() {
        if (adminClient != null) {
            adminConnection.close();
            adminClient.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "hash", "owner", LEASE, Duration.ZERO);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void claimsQueuedBehindACallOnItsWayLeaveTogetherInOneCallEachAppliedAsIfAlone() throws Exception {
        String run = "idem:gather:" + UUID.randomUUID() + ":";
        ExecutorService pool = Executors.newFixedThreadPool(QUEUED + 2); // a thread for each claim
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(server.uri())
                .timeout(Duration.ofSeconds(20)).build()) {
            store.claim(request(run + "warm-up")); // the connection is open and the script loaded
            long callsBefore = evalshaCalls();
            RedisFuture<String> asleep = sleepFor(store, SLEEP_SECONDS);
            List<Future<ClaimOutcome>> outcomes = new ArrayList<>();
            outcomes.add(pool.submit(() -> store.claim(request(run + "first"))));
            await(() -> store.queuedClaims() == 0 && store.claimsOnTheirWay(), "the first claim is on its way");
            assertFalse(asleep.isDone(), () -> "the server sleeps: " + describeSleep(asleep));
            for (int i = 0; i < QUEUED; i++) {
                String key = run + "queued-" + i;
                outcomes.add(pool.submit(() -> store.claim(request(key))));
            }
            // the same key twice in one call: the second finds the first's record
            outcomes.add(pool.submit(() -> store.claim(request(run + "queued-0"))));
            await(() -> store.queuedClaims() == QUEUED + 1, () -> "the other claims queue behind it (queued "
                    + store.queuedClaims() + ", on its way " + store.claimsOnTheirWay() + ", done "
                    + outcomes.stream().filter(Future::isDone).count() + ", asleep " + asleep.isDone() + ")");
            assertEquals(0, outcomes.stream().filter(Future::isDone).count(), "the server is still asleep");
            asleep.get(30, TimeUnit.SECONDS);
            int acquired = 0;
            int existing = 0;
            for (Future<ClaimOutcome> f : outcomes) {
                ClaimOutcome outcome = f.get(30, TimeUnit.SECONDS);
                if (outcome instanceof ClaimOutcome.Acquired) {
                    acquired++;
                } else {
                    existing++;
                    assertEquals(run + "queued-0", assertInstanceOf(ClaimOutcome.Existing.class, outcome).record()
                            .key());
                }
            }
            assertEquals(QUEUED + 1, acquired, "every other claim acquired its key");
            assertEquals(1, existing, "the second claim of one key in the call lost to the first");
            assertEquals(2, evalshaCalls() - callsBefore, "the first claim alone, then the " + (QUEUED + 1)
                    + " queued behind it in one call");
            for (int i = 0; i < QUEUED; i++) {
                assertEquals(1L, admin.exists(new String(RedisIdempotencyStore.redisKeys(run + "queued-" + i)[0],
                        StandardCharsets.UTF_8)), "the record of queued-" + i);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallThatGetsNoAnswerFailsItsCallersAndThoseQueuedBehindItAndTheStoreGoesOn() throws Exception {
        String run = "idem:gather-fail:" + UUID.randomUUID() + ":";
        ExecutorService pool = Executors.newFixedThreadPool(QUEUED + 1);
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(server.uri())
                .timeout(Duration.ofSeconds(1)).build()) {
            store.claim(request(run + "warm-up"));
            List<Future<ClaimOutcome>> outcomes = new ArrayList<>();
            sleepFor(store, SLEEP_SECONDS);
            outcomes.add(pool.submit(() -> store.claim(request(run + "first"))));
            await(() -> store.queuedClaims() == 0 && store.claimsOnTheirWay(), "the first claim is on its way");
            for (int i = 0; i < QUEUED; i++) {
                String key = run + "queued-" + i;
                outcomes.add(pool.submit(() -> store.claim(request(key))));
            }
            for (Future<ClaimOutcome> f : outcomes) {
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(IdempotencyStoreException.class, failed.getCause(), "fail-closed");
            }
            assertEquals("PONG", admin.ping(), "the server woke"); // the store dropped the connection it slept on
            assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(run + "after")),
                    "the next call is served: nothing was left blocking the store");
        } finally {
            pool.shutdownNow();
        }
    }

    private static String describeSleep(RedisFuture<String> f) {
        try {
            return f.isDone() ? f.get() : "pending";
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static long evalshaCalls() {
        Matcher m = Pattern.compile("cmdstat_evalsha:calls=(\\d+)").matcher(admin.info("commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /**
     * {@code DEBUG SLEEP seconds}, sent on the store's own connection: the server answers nobody until it wakes, and a
     * script call the store sends next on that connection comes after it, so it stays on its way until then.
     */
    private static RedisFuture<String> sleepFor(RedisIdempotencyStore store, int seconds) {
        return store.currentConnection().async().dispatch(CommandType.DEBUG,
                new StatusOutput<>(ByteArrayCodec.INSTANCE), new CommandArgs<>(ByteArrayCodec.INSTANCE).add("SLEEP")
                        .add(seconds));
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        await(condition, () -> what);
    }

    private static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, () -> "waited 20 s for: " + what.get());
            Thread.sleep(5);
        }
    }
}
