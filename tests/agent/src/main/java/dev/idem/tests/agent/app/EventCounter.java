package dev.idem.tests.agent.app;

import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyListener;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Found by ServiceLoader when an engine exists (under the agent); counts what happened. */
public class EventCounter implements IdempotencyListener {
    static final Map<IdempotencyEventType, AtomicInteger> COUNTS = new ConcurrentHashMap<>();

    @Override
    public void onEvent(IdempotencyEvent event) {
        COUNTS.computeIfAbsent(event.type(), t -> new AtomicInteger()).incrementAndGet();
    }

    static int count(String type) {
        for (Map.Entry<IdempotencyEventType, AtomicInteger> e : COUNTS.entrySet()) {
            if (e.getKey().name().equals(type)) {
                return e.getValue().get();
            }
        }
        return 0;
    }
}
