package dev.idem.core;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;

import java.time.Duration;
import java.util.Optional;

/** A real store with hooks: tests override one operation to delay or observe it, never to fake an outcome. */
class DelegatingStore implements IdempotencyStore {
    /** The real store; a subclass that forwards {@link #watch} (not forwarded here) reaches it directly. */
    final IdempotencyStore delegate;

    DelegatingStore(IdempotencyStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        return delegate.claim(request);
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        return delegate.complete(key, fencingToken, result, ttl);
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        return delegate.fail(key, fencingToken, failure, failureTtl);
    }

    @Override
    public boolean release(String key, long fencingToken) {
        return delegate.release(key, fencingToken);
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        return delegate.renew(key, fencingToken, lease);
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        return delegate.get(key);
    }

    @Override
    public void delete(String key) {
        delegate.delete(key);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
