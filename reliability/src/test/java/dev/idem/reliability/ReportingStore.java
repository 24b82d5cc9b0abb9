package dev.idem.reliability;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;

import java.util.function.Consumer;

/**
 * A soak worker's store: the real one, reporting what the engine was told, so the soak can account for every hold of
 * a key and not only for those that ran the body. Each claim the store granted is reported as
 * {@code CLAIMED <key> <token> <replaced state> <replaced token>} ({@code - 0} when it replaced nothing: the key was
 * absent, released, or its record expired) before the engine sees the outcome, and each release the store applied as
 * {@code RELEASED <key> <token>}. A claim whose answer never reached the worker (a dropped connection) is not
 * reported: the worker never held the key, and nothing ran under it. Everything else is passed on unchanged, and
 * closing it closes the real store.
 */
final class ReportingStore extends ForwardingIdempotencyStore {
    private final Consumer<String> report;

    ReportingStore(IdempotencyStore store, Consumer<String> report) {
        super(store);
        this.report = report;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ClaimOutcome outcome = super.claim(request);
        if (outcome instanceof ClaimOutcome.Acquired acquired) {
            IdempotencyRecord replaced = acquired.replaced();
            report.accept("CLAIMED " + request.key() + " " + acquired.fencingToken() + " "
                    + (replaced == null ? "- 0" : replaced.state() + " " + replaced.fencingToken()));
        }
        return outcome;
    }

    @Override
    public boolean release(String key, long fencingToken) {
        boolean released = super.release(key, fencingToken);
        if (released) {
            report.accept("RELEASED " + key + " " + fencingToken);
        }
        return released;
    }
}
