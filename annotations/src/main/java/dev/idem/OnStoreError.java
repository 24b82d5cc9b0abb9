package dev.idem;

/** What happens when the store cannot be reached before the method runs. */
public enum OnStoreError {
    /** Throw {@link IdempotencyStoreException}; the method does not run. */
    FAIL_CLOSED,
    /** Run the method without protection and emit a {@code FAIL_OPEN} event. */
    FAIL_OPEN
}
