package dev.idem.benchmarks;

import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import jakarta.annotation.Nonnull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The lengths in bytes of the Redis values Idem writes for one {@link RedisBenchmarks.Fresh} call: the record its
 * claim writes (in progress) and the record its completion leaves (with the encoded result), read from Redis after one
 * real call, so that the baselines write values as long as Idem's, as {@code JdbcReport}'s baseline rows are as long
 * as Idem's rows. A completion appends the encoded result to the claimed record, so the in-progress record is the
 * completed one less the result.
 *
 * @param inProgress the claimed record's length
 * @param completed  the completed record's length
 */
record RecordLengths(int inProgress, int completed) {

    /** Makes one fresh call through an engine of {@code redis}'s client, and reads what it wrote. */
    static RecordLengths of(RedisBenchmarks.Redis redis) {
        LastCompletion last = new LastCompletion(RedisIdempotencyStore.builder(redis.client).build());
        redis.install(Clock.systemUTC(), last);
        try {
            redis.fresh.generate(new GenerateRequest("lengths-" + redis.run, 0));
            if (last.key == null) {
                throw new IllegalStateException("the fresh call completed no record");
            }
            Long stored = redis.commands.strlen(recordName(last.key));
            if (stored == null || stored <= last.resultLength) {
                throw new IllegalStateException("no record of " + last.key + " in Redis, or one shorter than its"
                        + " result (" + stored + " bytes)");
            }
            return new RecordLengths((int) (stored - last.resultLength), stored.intValue());
        } finally {
            redis.engine.close();
            redis.engine = null;
        }
    }

    /**
     * The Redis key of {@code key}'s record, as {@link RedisIdempotencyStore} documents it: {@code idem:{b}:h}, where
     * {@code h} is the first 128 bits of the SHA-256 of the key's UTF-8 bytes, in hex, and {@code b} its first 3
     * digits.
     */
    private static byte[] recordName(String key) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            String h = HexFormat.of().formatHex(hash, 0, 16);
            return ("idem:{" + h.substring(0, 3) + "}:" + h).getBytes(StandardCharsets.UTF_8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** Remembers the key and the result length of the last completion. */
    private static final class LastCompletion extends ForwardingIdempotencyStore {
        volatile String key;
        volatile int resultLength;

        LastCompletion(IdempotencyStore store) {
            super(store);
        }

        @Override
        public boolean complete(@Nonnull String key, long fencingToken, @Nonnull byte[] result,
                                @Nonnull Duration ttl) {
            boolean applied = super.complete(key, fencingToken, result, ttl);
            this.resultLength = result.length;
            this.key = key;
            return applied;
        }
    }
}
