package dev.idem.core;

import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;

import java.util.Optional;

/**
 * A real store with hooks: tests override one operation to delay or observe it, never to fake an outcome. It offers
 * no {@link #watch}, so a caller waiting through it polls by claiming again (the path these tests count claims on); a
 * test of watches overrides {@code watch} and reaches the real store's.
 */
class DelegatingStore extends ForwardingIdempotencyStore {
    /** The real store, for a test that reads it behind the hooks ({@link #delegate()} is for subclasses only). */
    final IdempotencyStore delegate;

    DelegatingStore(IdempotencyStore delegate) {
        super(delegate);
        this.delegate = delegate;
    }

    @Override
    public Optional<KeyWatch> watch(String key) {
        return Optional.empty();
    }
}
