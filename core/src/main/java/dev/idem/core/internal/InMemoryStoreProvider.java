package dev.idem.core.internal;

import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;

import java.time.Clock;
import java.util.Map;

/** Makes the in-memory store known as {@code memory}. */
public final class InMemoryStoreProvider implements IdempotencyStoreProvider {
    @Override
    public String name() {
        return "memory";
    }

    @Override
    public IdempotencyStore create(Map<String, String> properties, Clock clock) {
        return new InMemoryIdempotencyStore(clock);
    }
}
