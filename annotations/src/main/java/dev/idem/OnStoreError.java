package dev.idem;

/** What happens when the store cannot be reached before the method runs. */
public enum OnStoreError {
    /** Throw {@link IdempotencyStoreException}; the method does not run. */
    FAIL_CLOSED,
    /**
     * Run the method without protection and emit a {@code FAIL_OPEN} event; also while a store whose server was
     * unreachable at start is being created again in the background.
     */
    FAIL_OPEN
}
