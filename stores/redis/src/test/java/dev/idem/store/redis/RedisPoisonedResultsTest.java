package dev.idem.store.redis;

import dev.idem.core.hostile.PoisonedResultsContract;
import dev.idem.store.IdempotencyStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link PoisonedResultsContract} on Redis: result bytes an attacker replaced in the server. */
class RedisPoisonedResultsTest extends PoisonedResultsContract {
    private static TestRedis redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = TestRedis.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected IdempotencyStore openStore() {
        return RedisIdempotencyStore.builder(redis.uri()).build();
    }
}
