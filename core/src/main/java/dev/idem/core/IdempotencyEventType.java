package dev.idem.core;

/** What happened to a call, as reported to {@link IdempotencyListener}s. */
public enum IdempotencyEventType {
    /** The method ran and its result was stored. */
    EXECUTED,
    /** A stored result was returned and the method did not run. */
    REPLAYED,
    /** A stored failure was replayed (remembered failures, {@code noRetryFor}). */
    FAILURE_REPLAYED,
    /** A caller joined an execution already running in this JVM. */
    COALESCED,
    /** The same key came with another payload; the method did not run. */
    CONFLICT,
    /**
     * Another execution (in another process, or in this JVM) held the key and the caller did not get its result in
     * time, or was told at once ({@code onInProgress = THROW}); or the call came from inside that very execution.
     */
    IN_PROGRESS,
    /**
     * A claim whose lease had passed was taken over; the method runs again with a larger fencing token
     * ({@code onAbandoned = TAKE_OVER}, or {@code RECONCILE} when the reconciler said the work did not happen).
     */
    TAKEOVER,
    /**
     * A claim whose lease had passed was taken over and the {@code Reconciler} said its work happened: its answer
     * was stored as the result and the method did not run again ({@code onAbandoned = RECONCILE}).
     */
    RECONCILED,
    /**
     * A claim whose lease had passed was found and the call was refused with {@code IdempotencyAbandonedException}:
     * {@code onAbandoned = FAIL} (the refusal is recorded for the ttl, until a person decides), or the reconciler
     * failed (the next call asks again). The method did not run. Also logged.
     */
    ABANDONED,
    /** A call came after the window, while the old record was still kept: it ran again. Widen the window? */
    LATE_DUPLICATE,
    /** The execution's claim was taken over while it ran; its completion was refused by fencing. */
    LEASE_LOST,
    /** The work happened but its result could not be stored; the record stays in progress until its lease passes. */
    INDETERMINATE,
    /**
     * The method ran but its result could not be encoded for the store. The caller that ran it got its result; the
     * record was finished as FAILED for the ttl, so duplicates get {@code IdempotencyResultNotStoredException} at
     * once and the work is not repeated by accident.
     */
    RESULT_NOT_STORED,
    /**
     * A stored result could not be decoded by the current code (its class changed, another codec wrote it). With
     * {@code onUndecodable = FAIL} the call was refused; with {@code RUN_AGAIN} the method ran again.
     */
    RESULT_UNREADABLE,
    /** The store failed before the call and the method ran unprotected ({@code FAIL_OPEN}). */
    FAIL_OPEN,
    /** The store failed and the call was refused ({@code FAIL_CLOSED}). */
    STORE_ERROR,
    /**
     * The in-memory store's bound ({@code idem.memory.maximumSize}, {@code idem.memory.maximumBytes}) forced out a
     * record that still counted, so a duplicate of its key may run the method again. Reported by the store, not by
     * a call: the event's {@code operation} is the record's scope, its detail the record's state and age. Also
     * logged, at most once a minute with the number evicted since the last line. Raise the bound, shorten the ttl,
     * or use a shared store.
     */
    EVICTED,
    /**
     * An attempt of an operation with {@code @Idempotent(retry = ...)} failed with a retryable exception, and the
     * body runs again under the same claim after the event's {@link IdempotencyEvent#delay() delay}. The event's
     * {@link IdempotencyEvent#attempt() attempt} is the number of the attempt that failed, its cause the failure.
     */
    RETRY,
    /**
     * An operation that retries ended in failure: its last attempt ({@link IdempotencyEvent#attempt() attempt})
     * failed and no attempt is left, or after at least one retry it failed with an exception that is not
     * retryable, or it was interrupted between attempts. The cause is the final failure, which its callers get.
     */
    GAVE_UP
}
