package dev.idem;

/** The store could not be reached or failed. Before the call this fails closed: the method did not run. */
public class IdempotencyStoreException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     */
    public IdempotencyStoreException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     * @param cause   the failure that led to this one
     */
    public IdempotencyStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
