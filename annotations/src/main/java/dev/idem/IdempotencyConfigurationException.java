package dev.idem;

/** An @Idempotent attribute, a key parameter, the configuration or the weaving is wrong. Reported at the first call or at start, never by running the method unprotected. */
public class IdempotencyConfigurationException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     */
    public IdempotencyConfigurationException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message the message: names the method and the value at fault
     * @param cause   the failure that led to this one
     */
    public IdempotencyConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
