package dev.idem.store.redis;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.testsupport.RedisServerProcess;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import io.lettuce.core.AclSetuserArgs;
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

import java.net.URI;
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
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concurrent claims and completions gathered into one script call ({@link ScriptBatcher}), on a redis-server of the
 * test's own: while a call is on its way, the next callers' items queue and leave together in one call, each applied
 * as if alone and answered to its own caller; an item that cannot be applied fails its own caller only; a call that
 * fails as a whole fails all its callers at once, and those queued behind it, without blocking the store. The call
 * on its way is held by the server sleeping ({@code DEBUG SLEEP}, sent just before it on the store's connection), and
 * the test watches the batcher's own state, so which call carries which item is decided by the test.
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
            idle(store::claimsOnTheirWay);
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
                assertEquals(1L, admin.exists(new String(ScriptArguments.redisKeys(run + "queued-" + i)[0],
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
            idle(store::claimsOnTheirWay);
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

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void oneBadItemFailsOnlyItsOwnCallerAndEveryOtherItemOfTheCallIsAppliedAsIfAlone() throws Exception {
        String run = "idem:gather-bad:" + UUID.randomUUID() + ":";
        String badCounterKey = run + "bad-counter";
        String badCounter = name(badCounterKey, 1);
        String wrongType = run + "wrong-type";
        String notARecord = run + "not-a-record";
        List<String> good = new ArrayList<>();
        for (int i = 0; good.size() < QUEUED; i++) { // keys of other buckets than the one whose counter is foreign
            if (!name(run + "good-" + i, 1).equals(badCounter)) {
                good.add(run + "good-" + i);
            }
        }
        admin.hset(name(wrongType, 0), "field", "a hash, not a record"); // WRONGTYPE for SET ... GET
        admin.set(name(notARecord, 0), "hello"); // a string whose header cannot be read
        admin.hset(badCounter, "field", "a hash, not a counter"); // WRONGTYPE once the record is written
        ExecutorService pool = Executors.newFixedThreadPool(QUEUED + 4);
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(server.uri())
                .timeout(Duration.ofSeconds(20)).build()) {
            store.claim(request(run + "warm-up"));
            List<String> keys = new ArrayList<>(good);
            keys.add(QUEUED / 4, wrongType); // bad items among good ones, before and after them in the call
            keys.add(QUEUED / 2, notARecord);
            keys.add(3 * QUEUED / 4, badCounterKey);
            List<Future<ClaimOutcome>> outcomes = gatherClaims(store, pool, run, keys, key -> request(key));
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                Future<ClaimOutcome> outcome = outcomes.get(i);
                if (good.contains(key)) {
                    long token = assertInstanceOf(ClaimOutcome.Acquired.class, outcome.get(30, TimeUnit.SECONDS),
                            key).fencingToken();
                    assertEquals(token, store.get(key).orElseThrow().fencingToken(), key + " was applied");
                    continue;
                }
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> outcome.get(30, TimeUnit.SECONDS), key);
                IdempotencyStoreException e = assertInstanceOf(IdempotencyStoreException.class, failed.getCause());
                String redisKey = key.equals(badCounterKey) ? badCounter : name(key, 0);
                assertTrue(e.getMessage().contains(redisKey), "names the Redis key " + redisKey + ": "
                        + e.getMessage());
                assertTrue(e.getMessage().contains("claim of scope"), e.getMessage());
            }
            assertTrue(failureMessage(outcomes.get(keys.indexOf(wrongType))).contains("WRONGTYPE"),
                    "says why: " + failureMessage(outcomes.get(keys.indexOf(wrongType))));
            assertEquals("hash", admin.type(name(wrongType, 0)), "the foreign values are left as they were");
            assertEquals("hello", admin.get(name(notARecord, 0)));
            assertEquals("hash", admin.type(badCounter));
            assertEquals(0L, admin.exists(name(badCounterKey, 0)),
                    "the claim whose counter is foreign left no record: it failed as a whole, alone");
        } finally {
            pool.shutdownNow();
            admin.del(name(wrongType, 0), name(notARecord, 0), badCounter);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void eachCallerOfAGatheredCallGetsItsOwnReply() throws Exception {
        String run = "idem:gather-own:" + UUID.randomUUID() + ":";
        ExecutorService pool = Executors.newFixedThreadPool(QUEUED + 2);
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(server.uri())
                .timeout(Duration.ofSeconds(20)).build()) {
            // Half the keys are held already, each by its own owner: their callers lose, each to its own record.
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < QUEUED; i++) {
                String key = run + i;
                keys.add(key);
                if (i % 2 == 0) {
                    store.claim(new ClaimRequest(key, "hash-" + i, "owner-" + i, LEASE, Duration.ZERO));
                }
            }
            List<Future<ClaimOutcome>> claims = gatherClaims(store, pool, run, keys,
                    key -> new ClaimRequest(key, "other-hash", "other-owner", LEASE, Duration.ZERO));
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < QUEUED; i++) {
                ClaimOutcome outcome = claims.get(i).get(30, TimeUnit.SECONDS);
                if (i % 2 == 0) {
                    ClaimOutcome.Existing lost = assertInstanceOf(ClaimOutcome.Existing.class, outcome, keys.get(i));
                    assertEquals(keys.get(i), lost.record().key(), "the caller of " + keys.get(i));
                    assertEquals("owner-" + i, lost.record().owner());
                    tokens.add(lost.record().fencingToken());
                } else {
                    long token = assertInstanceOf(ClaimOutcome.Acquired.class, outcome, keys.get(i)).fencingToken();
                    assertEquals(store.get(keys.get(i)).orElseThrow().fencingToken(), token,
                            "the caller of " + keys.get(i) + " got its own key's token");
                    tokens.add(token);
                }
            }

            // Completions gathered likewise: every third one with a token that is not its claim's, so refused.
            store.claim(request(run + "warm-up"));
            idle(store::completionsOnTheirWay);
            RedisFuture<String> asleep = sleepFor(store, SLEEP_SECONDS);
            Future<Boolean> first = pool.submit(() -> store.complete(run + "warm-up", 1, new byte[] {0},
                    Duration.ofMinutes(1)));
            await(() -> store.queuedCompletions() == 0 && store.completionsOnTheirWay(),
                    "the first completion is on its way");
            List<Future<Boolean>> completions = new ArrayList<>();
            for (int i = 0; i < QUEUED; i++) {
                String key = keys.get(i);
                long token = tokens.get(i) + (i % 3 == 0 ? 1 : 0);
                byte[] result = {(byte) i};
                completions.add(pool.submit(() -> store.complete(key, token, result, Duration.ofMinutes(1))));
                int queued = i + 1;
                await(() -> store.queuedCompletions() == queued, "completion " + queued + " queues");
            }
            assertFalse(asleep.isDone(), "the completions left together");
            assertFalse(first.get(30, TimeUnit.SECONDS), "the warm-up's token is not 1");
            for (int i = 0; i < QUEUED; i++) {
                boolean expected = i % 3 != 0;
                assertEquals(expected, completions.get(i).get(30, TimeUnit.SECONDS), "the completion of " + i);
                IdempotencyRecord record = store.get(keys.get(i)).orElseThrow();
                if (expected) {
                    assertArrayEquals(new byte[] {(byte) i}, record.result(), "the result of " + i);
                } else {
                    assertEquals(RecordState.IN_PROGRESS, record.state(), keys.get(i));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aGatheredCallThatFailsFailsAllItsCallersAtOnce() throws Exception {
        String run = "idem:gather-all:" + UUID.randomUUID() + ":";
        String user = "gather-" + UUID.randomUUID().toString().substring(0, 8);
        String password = "pw-" + UUID.randomUUID();
        admin.aclSetuser(user, AclSetuserArgs.Builder.on().addPassword(password).allKeys().allChannels()
                .allCommands());
        URI base = URI.create(server.uri());
        String asUser = "redis://" + user + ":" + password + "@" + base.getHost() + ":" + base.getPort();
        ExecutorService pool = Executors.newFixedThreadPool(QUEUED + 2);
        // Far longer than the test's bound below: a caller that is not failed with its call waits for this.
        Duration callersTimeout = Duration.ofSeconds(90);
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(asUser).timeout(callersTimeout).build()) {
            store.claim(request(run + "warm-up"));
            idle(store::claimsOnTheirWay);
            RedisFuture<String> asleep = sleepFor(store, SLEEP_SECONDS);
            Future<ClaimOutcome> first = pool.submit(() -> store.claim(request(run + "first")));
            await(() -> store.queuedClaims() == 0 && store.claimsOnTheirWay(), "the first claim is on its way");
            List<Future<ClaimOutcome>> queued = new ArrayList<>();
            for (int i = 0; i < QUEUED; i++) {
                String key = run + "queued-" + i;
                queued.add(pool.submit(() -> store.claim(request(key))));
            }
            await(() -> store.queuedClaims() == QUEUED, () -> "the claims queue behind the first (queued "
                    + store.queuedClaims() + ", on its way " + store.claimsOnTheirWay() + ", done "
                    + queued.stream().filter(Future::isDone).count() + ", first done " + first.isDone()
                    + ", asleep " + describeSleep(asleep) + ")");
            // Read by the server as it wakes, before the queued claims' call (sent once the first is answered)
            // arrives: that call is refused as a whole.
            RedisFuture<String> revoked = adminConnection.async().aclSetuser(user,
                    AclSetuserArgs.Builder.on().addPassword(password).allKeys().allChannels().allCommands()
                            .removeCommand(CommandType.EVALSHA));
            assertFalse(asleep.isDone(), "the server still sleeps");
            asleep.get(30, TimeUnit.SECONDS);
            revoked.get(30, TimeUnit.SECONDS);
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                for (Future<ClaimOutcome> f : queued) {
                    ExecutionException failed = assertThrows(ExecutionException.class, f::get);
                    IdempotencyStoreException e = assertInstanceOf(IdempotencyStoreException.class,
                            failed.getCause());
                    assertTrue(e.getMessage().contains("NOPERM"), e.getMessage());
                }
            }, "every caller of the refused call fails with it, none waits out its own timeout");
            try {
                first.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException refusedToo) {
                // the first claim may have been read after the revocation: it is refused alone
            }
        } finally {
            pool.shutdownNow();
            admin.aclDeluser(user);
        }
    }

    /**
     * Claims {@code keys} in one gathered call, in that order: a first claim goes alone and the server holds it
     * (asleep) while the others queue behind it one by one, so they leave together, in the order of {@code keys},
     * when it is answered. Returns their outcomes in the same order.
     */
    private static List<Future<ClaimOutcome>> gatherClaims(RedisIdempotencyStore store, ExecutorService pool,
                                                           String run, List<String> keys,
                                                           Function<String, ClaimRequest> request)
            throws Exception {
        store.claim(request(run + "gather-warm-up"));
        idle(store::claimsOnTheirWay);
        RedisFuture<String> asleep = sleepFor(store, SLEEP_SECONDS);
        Future<ClaimOutcome> first = pool.submit(() -> store.claim(request(run + "gather-first")));
        await(() -> store.queuedClaims() == 0 && store.claimsOnTheirWay(), "the first claim is on its way");
        List<Future<ClaimOutcome>> outcomes = new ArrayList<>();
        for (String key : keys) {
            outcomes.add(pool.submit(() -> store.claim(request.apply(key))));
            int queued = outcomes.size();
            await(() -> store.queuedClaims() == queued, () -> "claim " + queued + " queues (queued "
                    + store.queuedClaims() + ", asleep " + !asleep.isDone() + ")");
        }
        assertFalse(asleep.isDone(), () -> "the server slept until all had queued: " + describeSleep(asleep));
        assertInstanceOf(ClaimOutcome.Acquired.class, first.get(30, TimeUnit.SECONDS));
        return outcomes;
    }

    /**
     * Waits until the batcher watched by {@code onItsWay} has no call on its way, so that the next call that leaves
     * is the test's first one: the event loop clears a call's flag just after it hands the call's replies out, so a
     * caller that got its reply may still see it set.
     */
    private static void idle(BooleanSupplier onItsWay) throws InterruptedException {
        await(() -> !onItsWay.getAsBoolean(), "the previous call is over");
    }

    /** The Redis key at {@code index} of {@code key}'s names (0 the record, 1 its bucket's counter). */
    private static String name(String key, int index) {
        return new String(ScriptArguments.redisKeys(key)[index], StandardCharsets.UTF_8);
    }

    private static String failureMessage(Future<?> f) {
        try {
            f.get(30, TimeUnit.SECONDS);
            return "no failure";
        } catch (ExecutionException e) {
            return e.getCause().getMessage();
        } catch (Exception e) {
            return e.toString();
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
