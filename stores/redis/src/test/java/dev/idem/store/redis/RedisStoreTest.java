package dev.idem.store.redis;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;
import dev.idem.store.RecordState;
import dev.idem.testsupport.LoopbackProxy;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Configuration, a closed store, connection loss, the key layout and script reloading, against a real Redis. Keys
 * carry a random prefix per class.
 */
class RedisStoreTest {
    private static final String PREFIX = "idem:redis-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private static final Duration LEASE = Duration.ofSeconds(30);
    @RegisterExtension
    static final TestRedis redis = new TestRedis();
    private static RedisClient adminClient;
    private static StatefulRedisConnection<String, String> adminConnection;
    private static RedisCommands<String, String> admin;

    @BeforeAll
    static void connectAdmin() {
        adminClient = RedisClient.create(redis.uri());
        adminConnection = adminClient.connect();
        admin = adminConnection.sync();
    }

    @AfterAll
    static void closeAdmin() {
        if (adminClient != null) {
            adminConnection.close();
            adminClient.shutdown();
        }
    }

    private static String key(String name) {
        return PREFIX + "scope:" + name + "-" + UUID.randomUUID();
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "hash", "owner", LEASE, Duration.ZERO);
    }

    private static RedisIdempotencyStore open() {
        return RedisIdempotencyStore.builder(redis.uri()).build();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Configuration

    @Test
    void theProviderIsFoundAsRedisAndBuildsAStoreFromItsKeys() {
        IdempotencyStoreProvider provider = ServiceLoader.load(IdempotencyStoreProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("redis")).findFirst().orElseThrow();
        assertInstanceOf(RedisStoreProvider.class, provider);

        String key = key("provider");
        try (IdempotencyStore store = provider.create(Map.of("uri", redis.uri(), "timeout", "1500ms"),
                Clock.systemUTC())) {
            assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
            assertInstanceOf(ClaimOutcome.Existing.class, store.claim(request(key)));
        }
    }

    @Test
    void theProviderRefusesUnknownKeysAMissingOrForeignUriAndABadTimeout() {
        RedisStoreProvider provider = new RedisStoreProvider();
        Clock clock = Clock.systemUTC();
        IdempotencyConfigurationException unknown = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of("uri", redis.uri(), "timout", "2s"), clock));
        assertTrue(unknown.getMessage().contains("idem.redis.timout"), unknown.getMessage());
        IdempotencyConfigurationException noUri = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of(), clock));
        assertTrue(noUri.getMessage().contains("idem.redis.uri"), noUri.getMessage());
        IdempotencyConfigurationException foreign = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of("uri", "http://user:secret@localhost:6379"), clock));
        assertFalse(foreign.getMessage().contains("secret"), "the password stays out: " + foreign.getMessage());
        for (String bad : List.of("2x", "-1s", "0s", "soon")) {
            assertThrows(IdempotencyConfigurationException.class,
                    () -> provider.create(Map.of("uri", redis.uri(), "timeout", bad), clock), bad);
        }
    }

    @Test
    void tlsAclAndSentinelUrisAreReadAndTheirPasswordsNeverShown() {
        for (String uri : List.of("redis://cache:6379/2", "rediss://bob:s3cret@cache:6380",
                "redis-sentinel://s3cret@sentinel-1:26379,sentinel-2:26379/0#mymaster")) {
            assertDoesNotThrow(() -> RedisIdempotencyStore.builder(uri), uri);
        }
        for (String bad : List.of("cache:6379", "redis-socket:///tmp/redis.sock", "mongodb://cache")) {
            assertThrows(IdempotencyConfigurationException.class, () -> RedisIdempotencyStore.builder(bad), bad);
        }
        assertEquals("rediss://bob:***@cache:6380", RedisIdempotencyStore.redactText("rediss://bob:s3cret@cache:6380"));
        assertEquals("redis-sentinel://***@sentinel:26379#m",
                RedisIdempotencyStore.redactText("redis-sentinel://s3cret@sentinel:26379#m"));
    }

    @Test
    void theProviderBuildsAStoreOnAnApplicationsClientWithTheStoresOwnSettings() {
        String prefix = "client-" + UUID.randomUUID().toString().substring(0, 8);
        String key = key("provider-client");
        RedisClient client = RedisClient.create(redis.uri());
        try {
            try (IdempotencyStore store = RedisStoreProvider.builder(client, Map.of("prefix", prefix,
                    "timeout", "3s")).build()) {
                assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
            }
            String record = new String(ScriptArguments.redisKeys(prefix, key)[0], StandardCharsets.UTF_8);
            assertEquals(1L, admin.exists(record), "the record is under the prefix: " + record);
            admin.del(record);
            IdempotencyConfigurationException uri = assertThrows(IdempotencyConfigurationException.class,
                    () -> RedisStoreProvider.builder(client, Map.of("uri", redis.uri())));
            assertTrue(uri.getMessage().startsWith("idem.redis.uri names a server of the redis store's own"),
                    uri.getMessage());
            IdempotencyConfigurationException unknown = assertThrows(IdempotencyConfigurationException.class,
                    () -> RedisStoreProvider.builder(client, Map.of("timout", "3s")));
            assertTrue(unknown.getMessage().contains("idem.redis.timout"), unknown.getMessage());
            IdempotencyConfigurationException cluster = assertThrows(IdempotencyConfigurationException.class,
                    () -> RedisStoreProvider.builder(client, Map.of("cluster", "true")));
            assertTrue(cluster.getMessage().contains("idem.redis.cluster"), cluster.getMessage());
        } finally {
            client.shutdown();
        }
    }

    @Test
    void thePrefixIsReadFromItsKeyAndABadOneIsRefusedNamingThePropertyAndTheValue() {
        RedisStoreProvider provider = new RedisStoreProvider();
        String prefix = "provider-" + UUID.randomUUID().toString().substring(0, 8);
        String key = key("provider-prefix");
        try (IdempotencyStore store = provider.create(Map.of("uri", redis.uri(), "prefix", " " + prefix + " "),
                Clock.systemUTC())) {
            assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
        }
        String record = new String(ScriptArguments.redisKeys(prefix, key)[0], StandardCharsets.UTF_8);
        assertEquals(1L, admin.exists(record), "the record is under the prefix: " + record);
        admin.del(record);

        for (String bad : List.of("", "   ", "a b", "tab\tbed", "a{b", "}", "{tag}", "x".repeat(65), "orders:",
                "billing:idem", ":a", "a*", "a?", "[a]", "caf\u00e9", "a\\b", "a\nb")) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> provider.create(Map.of("uri", redis.uri(), "prefix", bad), Clock.systemUTC()), bad);
            assertTrue(e.getMessage().contains("idem.redis.prefix"), e.getMessage());
            if (!bad.isBlank()) {
                assertTrue(e.getMessage().contains("\"" + bad.trim() + "\""), "shows the value: " + e.getMessage());
            }
            assertThrows(IdempotencyConfigurationException.class, () -> RedisIdempotencyStore.builder(redis.uri())
                    .prefix(bad), bad);
        }
        String brace = assertThrows(IdempotencyConfigurationException.class,
                () -> RedisIdempotencyStore.builder(redis.uri()).prefix("a{b")).getMessage();
        assertTrue(brace.contains("'{' at 1") && brace.contains("hash tag"), brace);
        // Prefix a's ACL patterns ~a:* &a:* would cover every key and channel of a prefix a:b.
        String colon = assertThrows(IdempotencyConfigurationException.class,
                () -> RedisIdempotencyStore.builder(redis.uri()).prefix("a:b")).getMessage();
        assertTrue(colon.contains("idem.redis.prefix = \"a:b\"") && colon.contains("':' at 1")
                && colon.contains("ACL pattern"), colon);
        for (String good : List.of("idem", "orders", "billing.idem", "app-1.v2/idem_x", "x".repeat(64))) {
            assertDoesNotThrow(() -> RedisIdempotencyStore.builder(redis.uri()).prefix(good), good);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void storesWithDifferentPrefixesOnOneServerNeverSeeEachOthersRecordsTokensOrWakeUps() throws Exception {
        String a = "idem-a-" + UUID.randomUUID().toString().substring(0, 8);
        String b = "idem-b-" + UUID.randomUUID().toString().substring(0, 8);
        String key = key("prefixes");
        try (RedisIdempotencyStore storeA = RedisIdempotencyStore.builder(redis.uri()).prefix(a).build();
             RedisIdempotencyStore storeB = RedisIdempotencyStore.builder(redis.uri()).prefix(b).build();
             RedisIdempotencyStore plain = open()) {
            long tokenA = assertInstanceOf(ClaimOutcome.Acquired.class, storeA.claim(request(key)),
                    "the key is new to A").fencingToken();
            assertTrue(storeB.get(key).isEmpty(), "B does not see A's claim");
            ClaimOutcome.Acquired acquiredB = assertInstanceOf(ClaimOutcome.Acquired.class,
                    storeB.claim(request(key)), "the key is new to B too");
            assertEquals(null, acquiredB.replaced(), "B replaced nothing");
            assertInstanceOf(ClaimOutcome.Acquired.class, plain.claim(request(key)), "and to the default prefix");

            try (var watchB = storeB.watch(key).orElseThrow(); var watchA = storeA.watch(key).orElseThrow()) {
                String channelA = new String(ScriptArguments.redisKeys(a, key)[0], StandardCharsets.UTF_8);
                String channelB = new String(ScriptArguments.redisKeys(b, key)[0], StandardCharsets.UTF_8);
                assertEquals(Map.of(channelA, 1L, channelB, 1L), admin.pubsubShardNumsub(channelA, channelB),
                        "each store listens on its own prefix's channel");
                assertTrue(storeA.complete(key, tokenA, new byte[] {1}, Duration.ofMinutes(1)));
                assertTrue(watchA.await(10, TimeUnit.SECONDS), "A's completion wakes A's watch");
                assertFalse(watchB.await(0, TimeUnit.SECONDS), "and not B's (published on A's channel only)");
            }
            assertEquals(RecordState.IN_PROGRESS, storeB.get(key).orElseThrow().state(), "B's record is its own");
            assertEquals(acquiredB.fencingToken(), storeB.get(key).orElseThrow().fencingToken());
            assertFalse(storeB.complete(key, tokenA, new byte[] {2}, Duration.ofMinutes(1)),
                    "A's token is nothing to B");
            storeB.delete(key);
            assertArrayEquals(new byte[] {1}, storeA.get(key).orElseThrow().result(), "B's delete left A's record");
            assertEquals(RecordState.IN_PROGRESS, plain.get(key).orElseThrow().state());
            for (String prefix : List.of(a, b)) {
                byte[][] names = ScriptArguments.redisKeys(prefix, key);
                String record = new String(names[0], StandardCharsets.UTF_8);
                String counter = new String(names[1], StandardCharsets.UTF_8);
                assertTrue(record.startsWith(prefix + ":{") && counter.startsWith(prefix + ":{"), record);
                assertEquals(1L, admin.exists(counter), "each prefix has its own counters: " + counter);
                admin.del(record, counter);
            }
            plain.delete(key);
        }
    }

    @Test
    void anAclUserLimitedToAPrefixsKeysAndChannelsRunsAStoreOfThatPrefixAndNoOther() throws Exception {
        String prefix = "idem-acl-" + UUID.randomUUID().toString().substring(0, 8);
        String user = "idem-prefix-" + UUID.randomUUID().toString().substring(0, 8);
        String password = "pw-" + UUID.randomUUID();
        // The least ACL of docs/redis-store.md, with the prefix's patterns.
        CommandArgs<String, String> acl = new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add(user).add("on")
                .add(">" + password);
        for (String rule : RedisAclAndTlsTest.STORE_ACL.replace("idem:*", prefix + ":*").split(" ")) {
            acl.add(rule);
        }
        assertEquals("OK", admin.dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), acl));
        try {
            RedisURI base = RedisURI.create(redis.uri());
            String asUser = "redis://" + user + ":" + password + "@" + base.getHost() + ":" + base.getPort();
            String key = key("acl-prefix");
            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(asUser).prefix(prefix).build()) {
                long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
                try (var watch = store.watch(key).orElseThrow()) {
                    assertTrue(store.complete(key, token, new byte[] {1}, Duration.ofMinutes(1)));
                    assertTrue(watch.await(10, TimeUnit.SECONDS), "woken on the prefix's channel");
                }
                assertArrayEquals(new byte[] {1}, store.get(key).orElseThrow().result());
                store.delete(key);
            }
            try (RedisIdempotencyStore other = RedisIdempotencyStore.builder(asUser).build()) {
                IdempotencyStoreException refused = assertThrows(IdempotencyStoreException.class,
                        () -> other.claim(request(key)));
                assertTrue(refused.getMessage().contains("NOPERM"), refused.getMessage());
            }
        } finally {
            admin.aclDeluser(user);
            admin.del(new String(ScriptArguments.redisKeys(prefix, key("x"))[1], StandardCharsets.UTF_8));
        }
    }

    @Test
    void timeoutsAreReadInShortAndIsoForms() {
        assertEquals(Duration.ofMillis(500), RedisStoreProvider.timeout("500ms"));
        assertEquals(Duration.ofSeconds(2), RedisStoreProvider.timeout(" 2s "));
        assertEquals(Duration.ofMinutes(1), RedisStoreProvider.timeout("1m"));
        assertEquals(Duration.ofSeconds(3), RedisStoreProvider.timeout("PT3S"));
    }

    @Test
    void anAclUserAndPasswordInTheUriAreUsedAndAWrongPasswordFailsAtStartWithoutShowingIt() {
        String user = "idem-test-" + UUID.randomUUID().toString().substring(0, 8);
        String password = "pw-" + UUID.randomUUID();
        admin.aclSetuser(user, AclSetuserArgs.Builder.on().addPassword(password).keyPattern("idem:*")
                .allCommands());
        try {
            RedisURI base = RedisURI.create(redis.uri());
            String withUser = "redis://" + user + ":" + password + "@" + base.getHost() + ":" + base.getPort();
            String key = key("acl");
            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(withUser).build()) {
                assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
            }
            String wrong = "redis://" + user + ":not-" + password + "@" + base.getHost() + ":" + base.getPort();
            IdempotencyStoreException refused = assertThrows(IdempotencyStoreException.class,
                    () -> RedisIdempotencyStore.builder(wrong).timeout(Duration.ofSeconds(1)).build());
            assertFalse(refused.getMessage().contains(password), "the password stays out: " + refused.getMessage());
        } finally {
            admin.aclDeluser(user);
        }
    }

    @Test
    void aStoreOverAGivenClientLeavesTheClientOpen() {
        RedisClient client = RedisClient.create(redis.uri());
        try {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder(client).build();
            String key = key("given-client");
            assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
            store.close();
            assertThrows(IdempotencyStoreException.class, () -> store.get(key));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                assertEquals("PONG", c.sync().ping(), "the caller's client is still usable");
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aServerNobodyListensOnFailsAtStartWithinTheTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String uri = "redis://127.0.0.1:" + port;
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> RedisIdempotencyStore.builder(uri).timeout(Duration.ofMillis(500)).build());
        assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Lifecycle and connection loss

    @Test
    void aClosedStoreRefusesEveryOperationAndClosingTwiceIsHarmless() {
        RedisIdempotencyStore store = open();
        String key = key("closed");
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
        store.close();
        assertDoesNotThrow(store::close);

        List<Executable> operations = List.of(
                () -> store.claim(request(key)),
                () -> store.complete(key, token, new byte[] {1}, Duration.ofMinutes(1)),
                () -> store.fail(key, token, new byte[] {1}, Duration.ofMinutes(1)),
                () -> store.release(key, token),
                () -> store.renew(key, token, LEASE),
                () -> store.get(key),
                () -> store.delete(key));
        for (Executable operation : operations) {
            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, operation);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aConnectionTheServerDropsFailsClosedAndTheNextCallReconnects() {
        String key = key("dropped");
        try (RedisIdempotencyStore store = open()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            long id = store.currentConnection().sync().clientId();

            assertEquals(1L, admin.clientKill(KillArgs.Builder.id(id)), "the store's connection was dropped");

            // The first call after the drop fails (closed: a store exception, never a wrong answer) unless the drop
            // was already noticed; the next one runs on a new connection.
            try {
                store.get(key);
            } catch (IdempotencyStoreException expected) {
                assertTrue(expected.getMessage().contains("get of scope"), expected.getMessage());
            }
            assertEquals(token, store.get(key).orElseThrow().fencingToken());
            assertTrue(store.complete(key, token, new byte[] {1}, Duration.ofMinutes(1)));
            assertTrue(store.currentConnection().sync().clientId() != id, "a new connection");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aServerThatStopsAnsweringFailsEveryCallWithinTheTimeoutAndTheStoreRecovers() throws Exception {
        String key = key("paused");
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(redis.uri())
                .timeout(Duration.ofMillis(300)).build()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            admin.clientPause(1_500); // the server holds every client's commands, as a hung server would

            long started = System.nanoTime();
            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                    () -> store.complete(key, token, new byte[] {1}, Duration.ofMinutes(1)));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(e.getMessage().contains("complete of scope"), e.getMessage());
            assertTrue(tookMillis < 1_200, "the call failed after the timeout, not after the pause: " + tookMillis);

            Thread.sleep(1_500);
            // The timed-out completion may have run on the server once the pause ended; either way the claim is the
            // store's and the store answers again.
            IdempotencyRecord record = store.get(key).orElseThrow();
            assertEquals(token, record.fencingToken());
            if (record.state() == RecordState.IN_PROGRESS) {
                assertTrue(store.complete(key, token, new byte[] {1}, Duration.ofMinutes(1)));
            }
            assertEquals(RecordState.COMPLETED, store.get(key).orElseThrow().state());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void whileTheServerIsCutOffEveryCallerFailsWithinAboutTwoTimeoutsAndTheStoreReconnectsAfter() throws Exception {
        RedisURI target = RedisURI.create(redis.uri());
        Duration timeout = Duration.ofMillis(400);
        String key = key("cut");
        try (LoopbackProxy proxy = new LoopbackProxy(target.getHost(), target.getPort());
             RedisIdempotencyStore store = RedisIdempotencyStore.builder("redis://127.0.0.1:" + proxy.port())
                     .timeout(timeout).build()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            proxy.cut();

            int callers = 8;
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            try {
                List<Callable<Long>> calls = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    calls.add(() -> {
                        long started = System.nanoTime();
                        assertThrows(IdempotencyStoreException.class, () -> store.get(key));
                        return (System.nanoTime() - started) / 1_000_000;
                    });
                }
                for (Future<Long> took : pool.invokeAll(calls)) {
                    long millis = took.get();
                    assertTrue(millis < 4 * timeout.toMillis(), "a caller failed after " + millis + " ms with a "
                            + timeout.toMillis() + " ms timeout");
                }
            } finally {
                pool.shutdownNow();
            }

            proxy.restore();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            IdempotencyRecord record = null;
            while (record == null) {
                try {
                    record = store.get(key).orElseThrow();
                } catch (IdempotencyStoreException stillDown) {
                    assertTrue(System.nanoTime() < deadline, "the store did not reconnect: " + stillDown);
                    Thread.sleep(100);
                }
            }
            assertEquals(token, record.fencingToken(), "the claim survived the outage");
            assertTrue(store.complete(key, token, new byte[] {1}, Duration.ofMinutes(1)));
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Keys, TTLs and scripts

    @Test
    void theRecordAndTheCounterOfAKeyShareOneSlotWhateverTheKeySays() {
        for (String key : List.of("idem:a:b:c", "}", "{", "{}", "}{x}", "idem:{tenant}:orders:1",
                "\u6ce8\u6587-\ud83d\ude00", "x".repeat(2048))) {
            byte[][] keys = ScriptArguments.redisKeys(key);
            assertEquals(SlotHash.getSlot(keys[0]), SlotHash.getSlot(keys[1]), key);
            String record = new String(keys[0], StandardCharsets.UTF_8);
            assertTrue(record.matches("idem:\\{([0-9a-f]{3})}:\\1[0-9a-f]{29}"), record);
            assertEquals(record.substring(0, "idem:{abc}:".length()) + "t", new String(keys[1], StandardCharsets.UTF_8),
                    "the counter of the record's bucket");
            byte[][] prefixed = ScriptArguments.redisKeys("billing.idem", key);
            assertEquals(SlotHash.getSlot(keys[0]), SlotHash.getSlot(prefixed[0]), "the prefix keeps the hash tag");
            assertEquals(SlotHash.getSlot(prefixed[0]), SlotHash.getSlot(prefixed[1]), key);
            assertEquals("billing." + record, new String(prefixed[0], StandardCharsets.UTF_8));
        }
    }

    @Test
    void redisKeepsARecordForItsLogicalExpiryPlusTheMarginAndItsBucketsCounterForever() {
        String key = key("ttl");
        byte[][] keys = ScriptArguments.redisKeys(key);
        String record = new String(keys[0], StandardCharsets.UTF_8);
        String counter = new String(keys[1], StandardCharsets.UTF_8);
        try (RedisIdempotencyStore store = open()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            long margin = RedisIdempotencyStore.TTL_MARGIN.toMillis();
            assertBetween(LEASE.toMillis() + margin - 5_000, admin.pttl(record), LEASE.toMillis() + margin,
                    "an in-progress record is kept for its lease plus the margin");

            Duration ttl = Duration.ofMinutes(10);
            assertTrue(store.complete(key, token, new byte[] {1}, ttl));
            IdempotencyRecord done = store.get(key).orElseThrow();
            long logical = Duration.between(done.completedAt(), done.expiresAt()).toMillis();
            assertBetween(logical + margin - 5_000, admin.pttl(record), logical + margin,
                    "a finished record is kept for its logical expiry (with jitter) plus the margin");

            store.delete(key);
            assertEquals(0L, admin.exists(record));
            assertTrue(Long.parseLong(admin.get(counter)) >= token, "the counter keeps the last token");
            assertEquals(-1L, admin.pttl(counter), "the bucket's counter has no TTL");
        }
    }

    @Test
    void onlyAClaimWritesTheCounterAndKeysOfOneBucketDrawIncreasingTokensFromIt() {
        String first = key("bucket");
        String counter = names(first)[1];
        String second = null;
        for (int i = 0; second == null; i++) { // another key of the same bucket: one in 4096 is
            String candidate = key("bucket-" + i);
            if (names(candidate)[1].equals(counter)) {
                second = candidate;
            }
        }
        try (RedisIdempotencyStore store = open()) {
            long a = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(first))).fencingToken();
            assertEquals(Long.toString(a), admin.get(counter), "the claim wrote its token to the counter");
            assertTrue(store.renew(first, a, LEASE));
            long b = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(second))).fencingToken();
            assertTrue(b > a, "the bucket's next token is larger: " + a + " then " + b);
            assertTrue(store.complete(first, a, new byte[] {1}, Duration.ofMinutes(1)));
            assertTrue(store.release(second, b));
            store.delete(first);
            assertEquals(Long.toString(b), admin.get(counter),
                    "renewal, completion, release and delete leave the counter as the last claim wrote it");
            long c = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(first))).fencingToken();
            assertTrue(c > b, "a key deleted and claimed again gets a larger token: " + b + " then " + c);
        }
    }

    @Test
    void aForeignValueUnderARecordsNameIsReportedAndNeverTakenForARecord() {
        String key = key("foreign");
        String[] names = names(key);
        try (RedisIdempotencyStore store = open()) {
            for (String foreign : List.of("hello", "C" + "9".repeat(80) + "x")) {
                admin.set(names[0], foreign);
                for (Executable reading : List.<Executable>of(() -> store.claim(request(key)), () -> store.get(key))) {
                    IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, reading, foreign);
                    assertTrue(e.getMessage().contains("Redis key " + names[0])
                            && e.getMessage().contains("not a record of this store"), e.getMessage());
                }
                assertFalse(store.complete(key, 1_000_000_000_000_000L, new byte[] {1}, Duration.ofMinutes(1)),
                        "a completion finds no claim of its token in " + foreign);
                assertEquals(foreign, admin.get(names[0]), "left as it was");
            }
            assertFalse(store.release(key, -1), "a token no claim gave");
            admin.del(names[0]);

            admin.hset(names[0], "field", "value"); // another type: each operation fails, naming the Redis key
            for (Executable operation : List.<Executable>of(() -> store.claim(request(key)),
                    () -> store.complete(key, 1_000_000_000_000_000L, new byte[] {1}, Duration.ofMinutes(1)),
                    () -> store.fail(key, 1_000_000_000_000_000L, new byte[] {1}, Duration.ofMinutes(1)))) {
                IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, operation);
                assertTrue(e.getMessage().contains(names[0]) && e.getMessage().contains("WRONGTYPE"), e.getMessage());
            }
            assertEquals("value", admin.hget(names[0], "field"), "left as it was");
            admin.del(names[0]);
        }
    }

    @Test
    void aForeignValueUnderABucketsCounterFailsTheClaimAloneAndLeavesTheRecordAndTheCounterAsTheyWere() {
        // A prefix of its own: the counters of the default prefix are shared with every other test on the server.
        String prefix = "idem-counter-" + UUID.randomUUID().toString().substring(0, 8);
        AtomicLong offset = new AtomicLong();
        String taken = key("counter-takeover");
        String fresh = key("counter-fresh");
        String takenCounter = new String(ScriptArguments.redisKeys(prefix, taken)[1], StandardCharsets.UTF_8);
        String freshRecord = new String(ScriptArguments.redisKeys(prefix, fresh)[0], StandardCharsets.UTF_8);
        String freshCounter = new String(ScriptArguments.redisKeys(prefix, fresh)[1], StandardCharsets.UTF_8);
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(redis.uri()).prefix(prefix)
                .serverTimeOffset(offset::get).build()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(taken))).fencingToken();
            offset.set(LEASE.multipliedBy(2).toMillis()); // the lease has passed: the next claim takes over
            admin.del(takenCounter);
            admin.hset(takenCounter, "field", "value");
            IdempotencyStoreException wrongType = assertThrows(IdempotencyStoreException.class,
                    () -> store.claim(request(taken)));
            assertTrue(wrongType.getMessage().contains(takenCounter) && wrongType.getMessage().contains("WRONGTYPE"),
                    wrongType.getMessage());
            admin.del(takenCounter);
            admin.set(takenCounter, "not a number");
            IdempotencyStoreException notANumber = assertThrows(IdempotencyStoreException.class,
                    () -> store.claim(request(taken)));
            assertTrue(notANumber.getMessage().contains(takenCounter + ": holds a value that is not a token counter"),
                    notANumber.getMessage());
            assertEquals("not a number", admin.get(takenCounter), "the counter is put back as it was");
            assertEquals(token, store.get(taken).orElseThrow().fencingToken(), "the record was not replaced");

            admin.set(freshCounter, "not a number");
            assertThrows(IdempotencyStoreException.class, () -> store.claim(request(fresh)));
            assertEquals(0L, admin.exists(freshRecord), "a fresh claim that failed leaves no record");
            assertEquals("not a number", admin.get(freshCounter));

            admin.del(takenCounter, freshCounter);
            long after = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(taken)),
                    "the counter gone, the takeover goes through").fencingToken();
            assertTrue(after > token, token + " then " + after);
            assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(fresh)));
            store.delete(taken);
            store.delete(fresh);
        } finally {
            admin.del(takenCounter, freshCounter);
        }
    }

    private static String[] names(String key) {
        byte[][] keys = ScriptArguments.redisKeys(key);
        return new String[] {new String(keys[0], StandardCharsets.UTF_8), new String(keys[1], StandardCharsets.UTF_8)};
    }

    @Test
    void aScriptTheServerForgotIsLoadedAgain() {
        String key = key("noscript");
        try (RedisIdempotencyStore store = open()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            admin.scriptFlush();
            assertTrue(store.complete(key, token, new byte[] {7}, Duration.ofMinutes(1)));
            assertArrayEquals(new byte[] {7}, store.get(key).orElseThrow().result());
        }
    }

    @Test
    void tokensAreNeverBelowTheServersNowSoALostCounterCannotRewindThem() {
        String key = key("floor");
        byte[][] keys = ScriptArguments.redisKeys(key);
        String counter = new String(keys[1], StandardCharsets.UTF_8);
        try (RedisIdempotencyStore store = open()) {
            // The bucket's counter is shared: other tests' claims under a moved clock may have raised it past now.
            admin.del(counter);
            long first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            assertTrue(store.release(key, first));
            admin.del(counter); // evicted, say
            long second = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            assertTrue(second > first, first + " then " + second);
            assertTrue(second >= Instant.now().minusSeconds(60).toEpochMilli() * 1_000,
                    "at least the server's now in microseconds: " + second);
        }
    }

    @Test
    void aCounterAheadOfTheServersNowStillRaisesEveryToken() {
        String key = key("ahead");
        String counter = new String(ScriptArguments.redisKeys(key)[1], StandardCharsets.UTF_8);
        // A clock that went back, say. The bucket's counter stays a year ahead after the test: harmless to the keys
        // of other tests (their tokens are larger, and still increase), and it must never be lowered.
        long ahead = Math.max(Instant.now().plus(Duration.ofDays(365)).toEpochMilli() * 1_000,
                Long.parseLong(Objects.requireNonNullElse(admin.get(counter), "0")) + 1_000_000);
        admin.set(counter, Long.toString(ahead));
        try (RedisIdempotencyStore store = open()) {
            long first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            assertEquals(ahead + 1, first, "one above the counter, not the server's now");
            assertEquals(Long.toString(first), admin.get(counter), "the counter holds the token it gave");
            assertTrue(store.complete(key, first, new byte[] {1}, Duration.ofMinutes(1)));
            assertEquals(Long.toString(first), admin.get(counter), "the completion keeps the counter");

            store.delete(key);
            long second = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            assertEquals(ahead + 2, second, "the next claim after the delete is one above again");
        }
    }

    private static void assertBetween(long low, long actual, long high, String what) {
        assertTrue(actual >= low && actual <= high, what + ": " + actual + " not in [" + low + ", " + high + "]");
    }
}
