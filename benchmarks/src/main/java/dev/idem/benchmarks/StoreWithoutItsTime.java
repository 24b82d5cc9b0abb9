package dev.idem.benchmarks;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.TransactionalClaims;

import java.time.Duration;
import java.util.Optional;

/**
 * A store as the engine sees it when the store does not report its time with a claim's answer
 * ({@link ClaimOutcome#storeTime()} null): the engine then reads a record's instants on its own clock. The replay
 * benchmarks that must reach the store on every call run their engine on a clock far ahead of the store's through
 * this wrapper, so the copies the engine keeps of replayed results are always stale to it, as they are to a process
 * that does not hold them; every call still makes the store's own round trip. (A store that reports its time lets the
 * engine translate the record's instants onto its clock, which would make those copies count.)
 */
final class StoreWithoutItsTime implements IdempotencyStore {
    private final IdempotencyStore store;

    StoreWithoutItsTime(IdempotencyStore store) {
        this.store = store;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ClaimOutcome outcome = store.claim(request);
        if (outcome instanceof ClaimOutcome.Existing existing) {
            return new ClaimOutcome.Existing(existing.record());
        }
        ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) outcome;
        return new ClaimOutcome.Acquired(acquired.fencingToken(), acquired.replaced());
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        return store.complete(key, fencingToken, result, ttl);
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        return store.fail(key, fencingToken, failure, failureTtl);
    }

    @Override
    public boolean release(String key, long fencingToken) {
        return store.release(key, fencingToken);
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        return store.renew(key, fencingToken, lease);
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        return store.get(key);
    }

    @Override
    public void delete(String key) {
        store.delete(key);
    }

    @Override
    public Optional<KeyWatch> watch(String key) {
        return store.watch(key);
    }

    @Override
    public TransactionalClaims transactionalClaims() {
        return store.transactionalClaims();
    }

    @Override
    public void close() {
        store.close();
    }
}
