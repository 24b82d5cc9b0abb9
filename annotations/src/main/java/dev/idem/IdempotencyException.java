package dev.idem;

/** Base of every exception Idem throws, so callers can catch all of them in one place. */
public abstract class IdempotencyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; subclasses name the condition.
     *
     * @param message the message: names the method and the value at fault
     */
    protected IdempotencyException(String message) {
        super(message);
    }

    /**
     * Creates the exception; subclasses name the condition.
     *
     * @param message the message: names the method and the value at fault
     * @param cause   the failure that led to this one
     */
    protected IdempotencyException(String message, Throwable cause) {
        super(message, cause);
    }
}
