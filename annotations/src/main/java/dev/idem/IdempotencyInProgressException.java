package dev.idem;

/** Another execution holds the key and did not finish within the wait timeout (or the method asked not to wait). The method did not run here. */
public class IdempotencyInProgressException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     */
    public IdempotencyInProgressException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     * @param cause   the failure that led to this one
     */
    public IdempotencyInProgressException(String message, Throwable cause) {
        super(message, cause);
    }
}
