package dev.idem;

/**
 * A remembered failure (see {@link Idempotent#failureTtl()} and {@link Idempotent#noRetryFor()}) is being replayed,
 * but its original exception type may not be instantiated from stored data: only types in the method's
 * {@code throws} clause, in {@code noRetryFor}, and the JDK's own exceptions are. The message names the original
 * type and message; declare the type in the {@code throws} clause to get it replayed as itself.
 */
public class IdempotencyFailureReplayException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The binary name of the exception type the execution originally threw. */
    private final String originalType;

    /**
     * Creates the exception.
     *
     * @param message      the message: names the method and the original exception's type and message
     * @param originalType the binary name of the exception type the execution originally threw
     */
    public IdempotencyFailureReplayException(String message, String originalType) {
        super(message);
        this.originalType = originalType;
    }

    /** {@return the binary name of the exception type the execution originally threw} */
    public String originalType() {
        return originalType;
    }
}
