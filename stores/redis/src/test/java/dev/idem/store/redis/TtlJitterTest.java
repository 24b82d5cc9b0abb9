package dev.idem.store.redis;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.TtlJitter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Records written together do not expire together: 10,000 records completed at once with one ttl get Redis TTLs
 * spread uniformly over the jitter band ({@link TtlJitter}: the ttl to the ttl plus 10%, plus the store's margin).
 * The TTLs are read back with {@code PTTL}. The ttl is a day, so the band (2.4 hours) dwarfs the seconds between the
 * first write and the last read. Every record is deleted afterwards.
 */
class TtlJitterTest {
    private static final int RECORDS = 10_000;
    private static final int WRITERS = 16;
    private static final int DECILES = 10;
    private static final Duration TTL = Duration.ofDays(1);
    private static final String PREFIX = "idem:jitter-" + UUID.randomUUID().toString().substring(0, 8) + ":scope:";
    @RegisterExtension
    static final TestRedis redis = new TestRedis();

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void tenThousandRecordsWrittenTogetherExpireSpreadUniformlyOverTheJitterBand() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            keys.add(PREFIX + i);
        }
        RedisClient adminClient = RedisClient.create(redis.uri());
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(redis.uri()).build();
             StatefulRedisConnection<String, String> admin = adminClient.connect()) {
            long started = System.nanoTime();
            try {
                write(store, keys);
                long[] ttls = pttls(admin.async(), keys);
                long elapsed = (System.nanoTime() - started) / 1_000_000 + 1;

                long margin = RedisIdempotencyStore.TTL_MARGIN.toMillis();
                long low = TTL.toMillis() + margin;
                long band = (long) (TTL.toMillis() * TtlJitter.MAX_FRACTION);
                Arrays.sort(ttls);
                assertTrue(ttls[0] >= low - elapsed, "none kept shorter than the ttl plus the margin: " + ttls[0]);
                assertTrue(ttls[RECORDS - 1] <= low + band, "none kept beyond the band: " + ttls[RECORDS - 1]);
                assertTrue(ttls[0] < low + band / 100, "the band's first percent is used: " + ttls[0]);
                assertTrue(ttls[RECORDS - 1] > low + band - band / 100 - elapsed,
                        "the band's last percent is used: " + ttls[RECORDS - 1]);

                // Uniform: each tenth of the band holds about a tenth of the records (binomial, 1000 +- 30; bounds
                // six standard deviations away), so they are not all equal nor bunched in part of the band.
                int[] counts = new int[DECILES];
                for (long t : ttls) {
                    int decile = (int) Math.min(DECILES - 1, Math.max(0, (t - low) * DECILES / band));
                    counts[decile]++;
                }
                for (int d = 0; d < DECILES; d++) {
                    assertTrue(counts[d] >= 800 && counts[d] <= 1200, "tenth " + d + " of the band holds "
                            + counts[d] + " of " + RECORDS + " records: " + Arrays.toString(counts));
                }
                assertTrue(Arrays.stream(ttls).distinct().count() > RECORDS * 9 / 10,
                        "nearly every record has its own expiry");
            } finally {
                delete(admin.async(), keys);
            }
        } finally {
            adminClient.shutdown();
        }
    }

    /** Claims and completes every key, {@link #WRITERS} threads at once over the store's one connection. */
    private static void write(RedisIdempotencyStore store, List<String> keys) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                done.add(pool.submit(() -> {
                    for (int i = writer; i < keys.size(); i += WRITERS) {
                        String key = keys.get(i);
                        long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(
                                new ClaimRequest(key, "h", "owner", Duration.ofSeconds(30), Duration.ZERO)))
                                .fencingToken();
                        assertTrue(store.complete(key, token, new byte[] {1}, TTL));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] pttls(RedisAsyncCommands<String, String> admin, List<String> keys) throws Exception {
        List<RedisFuture<Long>> replies = new ArrayList<>();
        for (String key : keys) {
            replies.add(admin.pttl(recordKey(key)));
        }
        long[] ttls = new long[keys.size()];
        for (int i = 0; i < ttls.length; i++) {
            ttls[i] = replies.get(i).get(30, TimeUnit.SECONDS);
            assertTrue(ttls[i] > 0, "record " + i + " has a TTL: " + ttls[i]);
        }
        return ttls;
    }

    private static void delete(RedisAsyncCommands<String, String> admin, List<String> keys) throws Exception {
        List<RedisFuture<Long>> replies = new ArrayList<>();
        for (String key : keys) {
            replies.add(admin.del(recordKey(key))); // their buckets' counters are shared, and kept
        }
        long deleted = 0;
        for (RedisFuture<Long> r : replies) {
            deleted += r.get(30, TimeUnit.SECONDS);
        }
        assertEquals(keys.size(), deleted, "every record of the test is gone");
    }

    private static String recordKey(String key) {
        return new String(ScriptArguments.redisKeys(key)[0], StandardCharsets.UTF_8);
    }
}
