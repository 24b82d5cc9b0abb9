package dev.idem.store.redis;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.testsupport.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store reaching its master through Sentinel: the test starts a master and a Sentinel monitoring it
 * ({@code redis-server sentinel.conf --sentinel}, the configuration generated in the Sentinel's folder under
 * {@code target/}), and the store is given only {@code redis-sentinel://127.0.0.1:<sentinel>#idem-master}. Without a
 * {@code redis-server} on the PATH it is skipped, saying why.
 */
class RedisSentinelTest {
    private static final String MASTER_NAME = "idem-master";
    private static RedisServerProcess master;
    private static RedisServerProcess sentinel;

    @BeforeAll
    static void startMasterAndSentinel() throws Exception {
        Path binary = RedisServerProcess.binaryOrSkip("the Sentinel test is");
        master = RedisServerProcess.start(binary, "redis-sentinel-master", RedisServerProcess.freePort(), List.of(),
                List.of());
        int port = RedisServerProcess.freePort();
        Path config = RedisServerProcess.dirFor("redis-sentinel", port).resolve("sentinel.conf");
        // Sentinel rewrites its configuration file, so it is the test's own, in the Sentinel's folder.
        Files.writeString(config, "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 1\n");
        try {
            sentinel = RedisServerProcess.start(binary, "redis-sentinel", port,
                    List.of(config.toString(), "--sentinel"), List.of());
        } catch (RuntimeException e) {
            master.close();
            throw e;
        }
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (sentinel != null) {
                sentinel.close();
            }
        } finally {
            if (master != null) {
                master.close();
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallIsClaimedCompletedAndReplayedThroughTheMasterTheSentinelNames() throws Exception {
        String uri = "redis-sentinel://127.0.0.1:" + sentinel.port() + "#" + MASTER_NAME;
        String key = "idem:sentinel-test:scope:order-1";
        ClaimRequest request = new ClaimRequest(key, "h", "owner", Duration.ofSeconds(30), Duration.ZERO);
        try (RedisIdempotencyStore first = RedisIdempotencyStore.builder(uri).build();
             RedisIdempotencyStore second = RedisIdempotencyStore.builder(uri).build()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, first.claim(request)).fencingToken();
            assertTrue(first.complete(key, token, new byte[] {4, 2}, Duration.ofMinutes(5)));

            IdempotencyRecord replayed = assertInstanceOf(ClaimOutcome.Existing.class, second.claim(request))
                    .record();
            assertEquals(RecordState.COMPLETED, replayed.state());
            assertArrayEquals(new byte[] {4, 2}, replayed.result(), "the second store replays the first's result");
        }
        RedisClient direct = RedisClient.create(RedisURI.create(master.uri()));
        try (StatefulRedisConnection<byte[], byte[]> c = direct.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE)) {
            assertEquals(1L, c.sync().exists(ScriptArguments.redisKeys(key)[0]),
                    "the record is on the master the Sentinel named");
        } finally {
            direct.shutdown();
        }
    }
}
