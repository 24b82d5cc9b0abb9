package dev.idem.store.redis;

import dev.idem.core.hostile.PoisonedResultsContract;
import dev.idem.store.IdempotencyStore;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PoisonedResultsContract} on Redis: result bytes an attacker replaced in the server. */
class RedisPoisonedResultsTest extends PoisonedResultsContract {
    @RegisterExtension
    static final TestRedis redis = new TestRedis();

    @Override
    protected IdempotencyStore openStore() {
        return RedisIdempotencyStore.builder(redis.uri()).build();
    }
}
