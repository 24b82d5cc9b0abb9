package dev.idem;

/** Another execution holds the key and did not finish within the wait timeout (or the method asked not to wait). The method did not run here. */
public class IdempotencyInProgressException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    public IdempotencyInProgressException(String message) {
        super(message);
    }

    public IdempotencyInProgressException(String message, Throwable cause) {
        super(message, cause);
    }
}
