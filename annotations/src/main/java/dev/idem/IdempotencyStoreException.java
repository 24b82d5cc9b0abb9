package dev.idem;

/** The store could not be reached or failed. Before the call this fails closed: the method did not run. */
public class IdempotencyStoreException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    public IdempotencyStoreException(String message) {
        super(message);
    }

    public IdempotencyStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
