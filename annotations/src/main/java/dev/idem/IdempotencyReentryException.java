package dev.idem;

/**
 * A call was made with the key of an execution that is still running in the same call chain: an idempotent method
 * that calls itself (or another method of its scope) with the same key, directly or through a stage completed while
 * it runs. Waiting for that execution would wait for itself, so the call is refused at once. The running execution
 * is not affected. Retry outside the idempotent method, or give the inner call a key of its own.
 */
public class IdempotencyReentryException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     */
    public IdempotencyReentryException(String message) {
        super(message);
    }
}
