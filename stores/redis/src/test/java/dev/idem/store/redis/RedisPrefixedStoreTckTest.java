package dev.idem.store.redis;

import java.util.UUID;

/**
 * The TCK on standalone Redis, as {@link RedisStoreTckTest}, with stores whose Redis keys and channels carry a prefix
 * other than the default ({@link RedisIdempotencyStore.Builder#prefix(String)}): records, token counters and
 * wake-up channels all follow it.
 */
class RedisPrefixedStoreTckTest extends RedisStoreTckTest {
    private static final String PREFIX = "tck-" + UUID.randomUUID().toString().substring(0, 8);

    @Override
    RedisIdempotencyStore.Builder configure(RedisIdempotencyStore.Builder builder) {
        return builder.prefix(PREFIX);
    }
}
