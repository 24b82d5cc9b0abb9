package dev.idem.core;

import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreTck;
import dev.idem.store.tck.MutableClock;

class InMemoryIdempotencyStoreTckTest extends IdempotencyStoreTck {
    @Override
    protected IdempotencyStore createStore(MutableClock clock) {
        return new InMemoryIdempotencyStore(clock);
    }
}
