package dev.idem;

/**
 * A call found its key claimed by an execution whose lease passed (its owner died or stalled), and could not
 * settle whether that work happened: {@link OnAbandoned#FAIL} refused to decide, or the reconciler of
 * {@link OnAbandoned#RECONCILE} failed. The message names the operation, the key, the abandoned owner and what to
 * do. The method did not run for this call.
 */
public class IdempotencyAbandonedException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** @param message names the operation, the key, the abandoned owner and how to clear the key */
    public IdempotencyAbandonedException(String message) {
        super(message);
    }

    /**
     * @param message names the operation, the key, the abandoned owner and how to clear the key
     * @param cause   what the reconciler threw
     */
    public IdempotencyAbandonedException(String message, Throwable cause) {
        super(message, cause);
    }
}
