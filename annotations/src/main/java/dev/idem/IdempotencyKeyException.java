package dev.idem;

/** An argument value could not be encoded into a key at run time (a cycle, a value of a type that cannot be encoded). The method did not run. */
public class IdempotencyKeyException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     */
    public IdempotencyKeyException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     * @param cause   the failure that led to this one
     */
    public IdempotencyKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
