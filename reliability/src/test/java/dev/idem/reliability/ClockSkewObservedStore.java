package dev.idem.reliability;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * A real store (jdbc or redis) that reports every claim outcome of its worker ({@link ClockSkewWorker}), so the test
 * can tell, by the server's clock, when a claim was acquired and what it replaced. Everything else is passed through
 * unchanged: the engine sees the store exactly as it is.
 *
 * <p>Lines: {@code CLAIM <key> ACQUIRED <token> <claimed at> <replaced token> <replaced lease until>} (the last two
 * {@code -} when the claim replaced nothing) and {@code CLAIM <key> LOST <token> <state> <lease until>}; times are
 * epoch milliseconds of the store's server. A claim's own time is read back from the record it wrote: every store
 * stamps {@code leaseUntil = now + lease} at the claim, and the record is read before this method returns, so before
 * the engine can start the heartbeat that would move it (another claim cannot move it either while the lease holds;
 * should the read find another token, the time is reported as {@code -1}, which the test refuses).
 */
final class ClockSkewObservedStore extends ForwardingIdempotencyStore {
    private final Consumer<String> report;

    ClockSkewObservedStore(IdempotencyStore store, Consumer<String> report) {
        super(store);
        this.report = report;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ClaimOutcome outcome = super.claim(request);
        if (outcome instanceof ClaimOutcome.Acquired acquired) {
            Optional<IdempotencyRecord> written = delegate().get(request.key());
            long claimedAt = written.isPresent() && written.get().fencingToken() == acquired.fencingToken()
                    ? written.get().leaseUntil().toEpochMilli() - request.lease().toMillis() : -1;
            IdempotencyRecord replaced = acquired.replaced();
            report.accept("CLAIM " + request.key() + " ACQUIRED " + acquired.fencingToken() + " " + claimedAt + " "
                    + (replaced == null ? "- -"
                    : replaced.fencingToken() + " " + replaced.leaseUntil().toEpochMilli()));
        } else {
            IdempotencyRecord live = ((ClaimOutcome.Existing) outcome).record();
            report.accept("CLAIM " + request.key() + " LOST " + live.fencingToken() + " " + live.state() + " "
                    + live.leaseUntil().toEpochMilli());
        }
        return outcome;
    }
}
