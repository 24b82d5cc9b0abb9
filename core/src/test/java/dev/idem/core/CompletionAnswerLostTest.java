package dev.idem.core;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A completion the store applied but whose answer was lost (the connection dropped after the write): the engine's
 * retry of that completion finds the record already completed by this very claim. That is the result stored, not a
 * lease lost to another caller. Found by the reliability module's soak: connection resets made the engine report
 * LEASE_LOST ("another caller took the key over") for keys nobody else had claimed.
 */
class CompletionAnswerLostTest {

    /** The real in-memory store, whose first completion applies and then fails as a dropped connection would. */
    static final class AnswerLostStore extends DelegatingStore {
        final AtomicInteger completions = new AtomicInteger();

        AnswerLostStore(InMemoryIdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
            boolean applied = delegate.complete(key, fencingToken, result, ttl);
            if (completions.incrementAndGet() == 1) {
                throw new IdempotencyStoreException("connection reset after the completion was applied (simulated)");
            }
            return applied;
        }
    }

    @Test
    void aRetriedCompletionThatHadAppliedIsTheResultStoredNotALostLease() throws Throwable {
        EngineFixture base = new EngineFixture();
        base.close();
        AnswerLostStore store = new AnswerLostStore(new InMemoryIdempotencyStore(base.clock));
        try (EngineFixture fx = new EngineFixture(store, b -> b.clock(base.clock))) {
            IdempotentOperation<String> op = fx.engine.operation(IdempotencyPolicy.custom()
                    .operation("Orders#place").scope("orders").build(), String.class);
            AtomicInteger runs = new AtomicInteger();

            assertEquals("placed", op.call(() -> "placed" + (runs.incrementAndGet() > 1 ? runs.get() : ""), "o-1"));

            assertEquals(2, store.completions.get(), "the completion was retried after its answer was lost");
            assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST), "no lease was lost: " + fx.events);
            IdempotencyEvent executed = fx.last(IdempotencyEventType.EXECUTED);
            IdempotencyRecord stored = store.delegate.get(executed.key()).orElseThrow();
            assertEquals(RecordState.COMPLETED, stored.state());
            assertEquals(executed.fencingToken(), stored.fencingToken());
            assertEquals("placed", op.call(() -> "ran again", "o-1"));
            assertEquals(1, runs.get());
        }
    }
}
