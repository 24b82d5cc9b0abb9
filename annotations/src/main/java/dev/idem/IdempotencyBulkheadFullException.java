package dev.idem;

/**
 * The scope's concurrency limit ({@link Idempotent#maxConcurrent()}) was reached and no execution finished within
 * the wait timeout: the method did not run, and its key was released, so a later call may run it. Never remembered
 * as the operation's failure.
 */
public class IdempotencyBulkheadFullException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the method, the scope and the limit
     */
    public IdempotencyBulkheadFullException(String message) {
        super(message);
    }
}
