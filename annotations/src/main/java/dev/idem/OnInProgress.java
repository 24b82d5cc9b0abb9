package dev.idem;

/** What a caller does when the same key is being executed by another process. */
public enum OnInProgress {
    /** Wait up to {@link Idempotent#waitTimeout()} for the other execution's result. */
    WAIT,
    /** Throw {@link IdempotencyInProgressException} at once. */
    THROW
}
