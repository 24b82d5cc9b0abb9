package dev.idem.core.sharing;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import org.junit.jupiter.api.Test;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two engines configured by properties over one store backend, as two processes would be: a call made through one
 * runs once, and the same call through the other replays its result.
 *
 * <p>Written once: each module of a store that processes share runs it by extending this class with
 * {@link #engine()}. The operation's scope is new for every run, so the test shares a server with other suites safely.
 */
public abstract class TwoEnginesContract {

    /** A new engine over the store under test, configured as an application configures one; each call opens another. */
    protected abstract IdemEngine engine();

    @Test
    void aCallThroughOneEngineIsReplayedThroughTheOther() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place")
                .scope("two-engines-" + UUID.randomUUID().toString().substring(0, 8) + ":orders").build();
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
