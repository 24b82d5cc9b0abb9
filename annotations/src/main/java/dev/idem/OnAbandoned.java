package dev.idem;

/**
 * What a call does when it finds its key claimed by an execution whose lease passed: the owner died or stalled.
 * That does not mean the work did not happen: the side effect may have been done and only the completion lost.
 * The call has already taken the claim over (one atomic store operation, with a larger fencing token, so a late
 * completion of the old owner is refused); this says what it does with it.
 */
public enum OnAbandoned {
    /**
     * Run the method again under the new claim, and emit a {@code TAKEOVER} event. Right for work that is safe to
     * repeat, or that passes the key to a downstream API which deduplicates it itself.
     */
    TAKE_OVER,
    /**
     * Before running again, ask the application's {@code dev.idem.core.Reconciler} for the operation whether the
     * work happened. If it did, its answer is stored as the result and returned, the method does not run again,
     * and a {@code RECONCILED} event is emitted; if it did not, the method runs ({@code TAKEOVER} event). A
     * reconciler that fails makes the call fail closed with {@link IdempotencyAbandonedException}; the next call
     * asks again.
     */
    RECONCILE,
    /**
     * Refuse with {@link IdempotencyAbandonedException} naming the key, and record that answer as a failure for the
     * method's ttl, so every call on the key gets it until a person or a job decides (delete the record to let the
     * method run again). An {@code ABANDONED} event is emitted.
     */
    FAIL
}
