package dev.idem.reliability;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.TransactionalClaims;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A soak worker's store: the real one, reporting what the engine was told, so the soak can account for every hold of
 * a key and not only for those that ran the body. Each claim the store granted is reported as
 * {@code CLAIMED <key> <token> <replaced state> <replaced token>} ({@code - 0} when it replaced nothing: the key was
 * absent, released, or its record expired) before the engine sees the outcome, and each release the store applied as
 * {@code RELEASED <key> <token>}. A claim whose answer never reached the worker (a dropped connection) is not
 * reported: the worker never held the key, and nothing ran under it.
 */
final class ReportingStore implements IdempotencyStore {
    private final IdempotencyStore store;
    private final Consumer<String> report;

    ReportingStore(IdempotencyStore store, Consumer<String> report) {
        this.store = store;
        this.report = report;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ClaimOutcome outcome = store.claim(request);
        if (outcome instanceof ClaimOutcome.Acquired acquired) {
            IdempotencyRecord replaced = acquired.replaced();
            report.accept("CLAIMED " + request.key() + " " + acquired.fencingToken() + " "
                    + (replaced == null ? "- 0" : replaced.state() + " " + replaced.fencingToken()));
        }
        return outcome;
    }

    @Override
    public boolean release(String key, long fencingToken) {
        boolean released = store.release(key, fencingToken);
        if (released) {
            report.accept("RELEASED " + key + " " + fencingToken);
        }
        return released;
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
