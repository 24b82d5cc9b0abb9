package dev.idem.store.redis;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one typical record costs in Redis, as docs/redis-store.md states it: {@code MEMORY USAGE} of the record (the
 * token counters are one per bucket of keys, 4,096 in all, not one per record), for the record shape of the in-memory
 * store's measurement (benchmarks' {@code MemoryPerRecord}): a key as
 * the engine makes it ({@code idem:prod:payments:charge:<32 hex>}), a 64-hex payload hash, one engine's owner and a
 * 100-byte result, kept for an hour; and the same with a 32-byte result. Averaged over {@link #RECORDS} records each;
 * fails when a record grows past the figures of docs/redis-store.md.
 */
class MemoryPerRecordTest {
    private static final int RECORDS = 100;
    private static final int RESULT_BYTES = 100;
    private static final int SMALL_RESULT_BYTES = 32;
    /** The figures of docs/redis-store.md, rounded up. */
    private static final long BUDGET_BYTES = 420;
    private static final long SMALL_BUDGET_BYTES = 360;
    @RegisterExtension
    static final TestRedis redis = new TestRedis();

    @Test
    void aTypicalCompletedRecordTakesUnderTheReadmesFigure() {
        long[] typical = measure(RESULT_BYTES);
        long[] small = measure(SMALL_RESULT_BYTES);
        for (long[] m : new long[][] {typical, small}) {
            System.out.printf(Locale.ROOT, "Redis MEMORY USAGE of a record with a %d-byte result: %d bytes%n",
                    m[0], m[1]);
        }
        assertTrue(typical[1] <= BUDGET_BYTES, "a record takes " + typical[1]
                + " bytes, more than docs/redis-store.md's " + BUDGET_BYTES);
        assertTrue(small[1] <= SMALL_BUDGET_BYTES, "a record with a small result takes " + small[1]
                + " bytes, more than docs/redis-store.md's " + SMALL_BUDGET_BYTES);
    }

    /**
     * {result bytes, average record bytes} over
     * {@link #RECORDS} records completed with a random result of {@code resultBytes}; the records are deleted.
     */
    private static long[] measure(int resultBytes) {
        String run = UUID.randomUUID().toString().substring(0, 4); // this run's keys are its own
        RedisClient client = RedisClient.create(redis.uri());
        long recordBytes = 0;
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(redis.uri()).build();
             StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisCommands<byte[], byte[]> admin = c.sync();
            HexFormat hex = HexFormat.of();
            for (int i = 0; i < RECORDS; i++) {
                String key = "idem:prod:payments:charge:" + run + hex.formatHex(random(14));
                long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(new ClaimRequest(key,
                        hex.formatHex(random(32)), "4711/1a2b3c4d", Duration.ofSeconds(30), Duration.ZERO)))
                        .fencingToken();
                assertTrue(store.complete(key, token, random(resultBytes), Duration.ofHours(1)));
                byte[][] keys = ScriptArguments.redisKeys(key);
                recordBytes += admin.memoryUsage(keys[0]);
                admin.del(keys[0]);
            }
        } finally {
            client.shutdown();
        }
        return new long[] {resultBytes, recordBytes / RECORDS};
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
