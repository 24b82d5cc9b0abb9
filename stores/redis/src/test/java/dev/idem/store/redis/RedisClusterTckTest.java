package dev.idem.store.redis;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreTck;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.tck.StoreTime;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCK on a Redis Cluster of three masters the test starts ({@link TestRedisCluster}), through
 * {@code idem.redis.cluster=true} with two seed nodes; then where each command runs, counted on each master with
 * {@code INFO commandstats}: a key's scripts on the master owning its slot, a script reloaded only on the master that
 * forgot it, the time read from the master owning the key. The TCK's {@code makeUnreachable} closes the store (a
 * Cluster client learns the nodes' own addresses, so a proxy in front of a seed cannot cut it off).
 */
class RedisClusterTckTest extends IdempotencyStoreTck {
    private static TestRedisCluster cluster;
    private final AtomicLong offset = new AtomicLong();
    private RedisIdempotencyStore first;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestRedisCluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private RedisIdempotencyStore open() {
        return RedisIdempotencyStore.builder(cluster.uri()).cluster(true).serverTimeOffset(offset::get).build();
    }

    @Override
    protected IdempotencyStore createStore(MutableClock clock) {
        first = open();
        return first;
    }

    @Override
    protected StoreTime createStoreTime(MutableClock clock) {
        // The three masters run on this machine's one clock; two shared cores make a step between readings slow.
        return StoreTime.serverClockWithOffset(() -> first.serverNow(), offset, Duration.ofSeconds(2));
    }

    @Override
    protected Optional<IdempotencyStore> createPeerStore(MutableClock clock) {
        return Optional.of(open());
    }

    /** {@code count} keys of this test whose slots are served by master {@code node}. */
    private List<String> keysOn(int node, int count) {
        return keysOn("on-", node, count);
    }

    private List<String> keysOn(String stem, int node, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            String k = key(stem + node + "-" + i);
            if (cluster.nodeOfSlot(SlotHash.getSlot(ScriptArguments.redisKeys(k)[0])) == node) {
                keys.add(k);
            }
        }
        return keys;
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "h", "owner", LEASE, Duration.ZERO);
    }

    /**
     * A claim, a completion and a read on every master, so each holds the scripts they run: a master's first call of a
     * script loads it (one more EVALSHA and a SCRIPT LOAD), and the counts of a test must not depend on which tests
     * ran on this cluster before it (the TCK's groups run after this class's own tests).
     */
    private void loadTheScriptsOnEveryMaster() {
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            String key = keysOn("scripts-on-", n, 1).get(0);
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
            assertTrue(store.complete(key, token, new byte[] {1}, TTL));
            assertTrue(store.get(key).isPresent());
        }
    }

    @Test
    void everyScriptRunsOnTheMasterOwningItsKeysSlotAndBothKeysOfAnIdempotencyKeyShareThatSlot() {
        int perNode = 10;
        loadTheScriptsOnEveryMaster();
        long[] before = new long[TestRedisCluster.MASTERS];
        long[] rejectedBefore = new long[TestRedisCluster.MASTERS];
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            before[n] = commandStat(n, "evalsha", "calls");
            rejectedBefore[n] = commandStat(n, "evalsha", "rejected_calls");
        }
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            for (String key : keysOn(n, perNode)) {
                long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
                assertTrue(store.complete(key, token, new byte[] {(byte) n}, TTL));
                byte[][] keys = ScriptArguments.redisKeys(key);
                String record = new String(keys[0], StandardCharsets.UTF_8);
                String counter = new String(keys[1], StandardCharsets.UTF_8);
                assertEquals(cluster.node(n).clusterKeyslot(record), cluster.node(n).clusterKeyslot(counter),
                        "the server puts the record and the counter in one slot");
                assertEquals(2L, cluster.node(n).exists(record, counter), "both live on master " + n);
                assertTrue(counter.startsWith(record.substring(0, record.indexOf('}') + 1)),
                        "the counter of the record's bucket: " + record + ", " + counter);
            }
        }
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            assertEquals(2L * perNode, commandStat(n, "evalsha", "calls") - before[n],
                    "master " + n + " ran the claim and the completion of its own keys, and no others");
            assertEquals(0L, commandStat(n, "evalsha", "rejected_calls") - rejectedBefore[n],
                    "no command was sent to a master that does not own its slot (MOVED)");
        }
    }

    @Test
    void aScriptOneMasterForgotIsLoadedAgainOnThatMasterOnly() {
        loadTheScriptsOnEveryMaster();
        List<String> keys = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            String key = keysOn(n, 1).get(0);
            keys.add(key);
            tokens.add(assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken());
        }
        int forgetful = 1;
        cluster.node(forgetful).scriptFlush();
        long[] loadsBefore = new long[TestRedisCluster.MASTERS];
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            loadsBefore[n] = commandStat(n, "script|load", "calls");
        }

        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            assertTrue(store.complete(keys.get(n), tokens.get(n), new byte[] {(byte) n}, TTL), "master " + n);
            assertArrayEquals(new byte[] {(byte) n}, store.get(keys.get(n)).orElseThrow().result());
        }
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            assertEquals(n == forgetful ? 2L : 0L, commandStat(n, "script|load", "calls") - loadsBefore[n],
                    "SCRIPT LOAD on master " + n + " (the completion's script and the read's, once each)");
        }
        assertEquals(List.of(true, true), cluster.node(forgetful).scriptExists(Scripts.COMPLETE.sha(),
                Scripts.GET.sha()));
    }

    @Test
    void theServersTimeIsReadFromTheMasterOwningTheKey() {
        int owner = cluster.nodeOfSlot(SlotHash.getSlot(ScriptArguments.redisKeys("")[0]));
        long[] before = new long[TestRedisCluster.MASTERS];
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            before[n] = commandStat(n, "time", "calls");
        }
        first.serverNow();
        for (int n = 0; n < TestRedisCluster.MASTERS; n++) {
            assertEquals(n == owner ? 1L : 0L, commandStat(n, "time", "calls") - before[n], "TIME on master " + n);
        }
    }

    @Test
    void theProviderBuildsAClusterStoreFromIdemRedisClusterAndRefusesASentinelClusterOrANonBoolean() {
        RedisStoreProvider provider = new RedisStoreProvider();
        String key = key("provider");
        try (IdempotencyStore viaProvider = provider.create(Map.of("uri", cluster.uri(), "cluster", "true"),
                Clock.systemUTC())) {
            assertInstanceOf(ClaimOutcome.Acquired.class, viaProvider.claim(request(key)));
            assertInstanceOf(ClaimOutcome.Existing.class, store.claim(request(key)), "the same record");
        }
        IdempotencyConfigurationException sentinel = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of("uri", "redis-sentinel://127.0.0.1:26379#m", "cluster", "true"),
                        Clock.systemUTC()));
        assertTrue(sentinel.getMessage().contains("idem.redis.cluster"), sentinel.getMessage());
        IdempotencyConfigurationException notBoolean = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of("uri", cluster.uri(), "cluster", "yes"), Clock.systemUTC()));
        assertTrue(notBoolean.getMessage().contains("idem.redis.cluster"), notBoolean.getMessage());
    }

    @Test
    void aStoreOverAGivenClusterClientWorksAndLeavesTheClientOpen() {
        RedisClusterClient client = RedisClusterClient.create(cluster.uri().split(",")[0]);
        try {
            String key = key("given-client");
            RedisIdempotencyStore given = RedisIdempotencyStore.builder(client).cluster(true).build();
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, given.claim(request(key))).fencingToken();
            assertTrue(given.complete(key, token, new byte[] {9}, TTL));
            given.close();
            assertArrayEquals(new byte[] {9}, store.get(key).orElseThrow().result(), "seen by the other store");
            try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
                assertEquals("PONG", c.sync().ping(), "the caller's client is still usable");
            }
            assertThrows(IdempotencyConfigurationException.class,
                    () -> RedisIdempotencyStore.builder(client).cluster(false));
        } finally {
            client.shutdown();
        }
    }

    /** {@code field} of {@code command} in master {@code node}'s INFO commandstats; zero before its first call. */
    private static long commandStat(int node, String command, String field) {
        Matcher m = Pattern.compile("cmdstat_" + Pattern.quote(command) + ":[^\\r\\n]*\\b" + field + "=(\\d+)")
                .matcher(cluster.node(node).info("commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0L;
    }
}
