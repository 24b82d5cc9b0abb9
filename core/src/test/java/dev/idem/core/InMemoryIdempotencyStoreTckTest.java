package dev.idem.core;

import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreTck;
import dev.idem.store.tck.MutableClock;

/**
 * The in-memory store against the TCK. It reads the clock it is given (so the default store time applies) and
 * cannot be shared between processes (so there is no peer): the tests of a JVM clock apart from the store's time
 * and of instances sharing a backend are skipped, each saying why.
 */
class InMemoryIdempotencyStoreTckTest extends IdempotencyStoreTck {
    @Override
    protected IdempotencyStore createStore(MutableClock clock) {
        return new InMemoryIdempotencyStore(clock);
    }
}
