package dev.idem;

/** A call reused an idempotency key with other arguments: the same operation id with another payload is a bug, not a retry. The method did not run. */
public class IdempotencyConflictException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     */
    public IdempotencyConflictException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     * @param cause   the failure that led to this one
     */
    public IdempotencyConflictException(String message, Throwable cause) {
        super(message, cause);
    }
}
