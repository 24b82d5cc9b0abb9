package dev.idem.store.redis;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two engines configured with {@code idem.store=redis} over one server, as two processes would be: a call made through
 * one runs once, and the same call through the other replays its result.
 */
class TwoEnginesTest {
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

    private static IdemEngine engine() {
        return IdemEngine.create(IdemSettings.fromProperties(Map.of("idem.store", "redis", "idem.redis.uri",
                redis.uri(), "idem.redis.timeout", "2s")));
    }

    @Test
    void aCallThroughOneEngineIsReplayedThroughTheOther() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place")
                .scope("redis-" + UUID.randomUUID().toString().substring(0, 8) + ":orders").build();
        String order = "order-" + UUID.randomUUID();
        try (IdemEngine first = engine(); IdemEngine second = engine()) {
            IdempotentOperation<String> viaFirst = first.operation(policy, String.class);
            IdempotentOperation<String> viaSecond = second.operation(policy, String.class);

            String placed = viaFirst.call(() -> {
                runs.incrementAndGet();
                return "placed " + order;
            }, order);
            String replayed = viaSecond.call(() -> {
                runs.incrementAndGet();
                return "placed again";
            }, order);

            assertEquals("placed " + order, placed);
            assertEquals("placed " + order, replayed, "the second engine replays the first one's result");
            assertEquals(1, runs.get(), "the call ran once across both engines");
        }
    }
}
