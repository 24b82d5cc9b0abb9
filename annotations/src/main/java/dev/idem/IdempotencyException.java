package dev.idem;

/** Base of every exception Idem throws, so callers can catch all of them in one place. */
public abstract class IdempotencyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected IdempotencyException(String message) {
        super(message);
    }

    protected IdempotencyException(String message, Throwable cause) {
        super(message, cause);
    }
}
