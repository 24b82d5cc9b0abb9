package dev.idem;

/**
 * The store could not be reached at all: no connection could be opened, or the connection broke, so the store never
 * answered. Unlike its parent, which also covers a store that answered with an error (a table of the wrong shape, a
 * foreign value under a key), this says nothing about the store's configuration or about one key: it is an outage,
 * and the same call may succeed once the store is back. Stores throw it so the engine can tell the two apart: an
 * unreachable store is tried again in the background while calls fail fast (or run unprotected under
 * {@code onStoreError = FAIL_OPEN}); any other failure is reported as it is.
 */
public class IdempotencyStoreUnreachableException extends IdempotencyStoreException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the store, the operation and where the store was looked for
     * @param cause   the failure that led to this one (the driver's or client's)
     */
    public IdempotencyStoreUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
