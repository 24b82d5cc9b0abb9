package dev.idem.core.hostile;

import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.IdempotencyStore;

import java.time.Clock;

/** {@link PoisonedResultsContract} on the in-memory store. */
class InMemoryPoisonedResultsTest extends PoisonedResultsContract {
    @Override
    protected IdempotencyStore openStore() {
        return new InMemoryIdempotencyStore(Clock.systemUTC());
    }
}
