package dev.idem.benchmarks;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;

/**
 * A store as the engine sees it when the store does not report its time with a claim's answer
 * ({@link ClaimOutcome#storeTime()} null): the engine then reads a record's instants on its own clock. The replay
 * benchmarks that must reach the store on every call run their engine on a clock far ahead of the store's through
 * this wrapper, so the copies the engine keeps of replayed results are always stale to it, as they are to a process
 * that does not hold them; every call still makes the store's own round trip. (A store that reports its time lets the
 * engine translate the record's instants onto its clock, which would make those copies count.)
 */
final class StoreWithoutItsTime extends ForwardingIdempotencyStore {
    StoreWithoutItsTime(IdempotencyStore store) {
        super(store);
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ClaimOutcome outcome = super.claim(request);
        if (outcome instanceof ClaimOutcome.Existing existing) {
            return new ClaimOutcome.Existing(existing.record());
        }
        ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) outcome;
        return new ClaimOutcome.Acquired(acquired.fencingToken(), acquired.replaced());
    }
}
