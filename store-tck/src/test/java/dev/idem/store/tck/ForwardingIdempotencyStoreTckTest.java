package dev.idem.store.tck;

import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;

import java.time.Duration;
import java.util.Optional;

/**
 * The whole TCK through {@link ForwardingIdempotencyStore} with nothing overridden, over the reference store on a
 * server's clock, with a peer over the same backend: every operation, watches and the store time a claim reports
 * included, must reach the real store with its arguments and come back unchanged. (The forwarding base lives in
 * store-spi, which has no store to forward to; the reference store is here.)
 */
class ForwardingIdempotencyStoreTckTest extends IdempotencyStoreTck {
    private ReferenceStore.Backend backend;
    private ServerClock serverClock;

    @Override
    protected IdempotencyStore createStore(MutableClock clock) {
        serverClock = new ServerClock();
        backend = new ReferenceStore.Backend(serverClock);
        return forwarding(new ReferenceStore(backend, clock));
    }

    @Override
    protected StoreTime createStoreTime(MutableClock clock) {
        return serverClock.asStoreTime();
    }

    @Override
    protected Optional<IdempotencyStore> createPeerStore(MutableClock clock) {
        return Optional.of(forwarding(new ReferenceStore(backend, clock)));
    }

    @Override
    protected Duration signalledWithin() {
        return Duration.ofMillis(500); // the reference store signals during the write itself
    }

    private static IdempotencyStore forwarding(IdempotencyStore real) {
        return new ForwardingIdempotencyStore(real) {
        };
    }
}
