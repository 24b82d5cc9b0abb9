package dev.idem;

/** An @Idempotent attribute, a key parameter, the configuration or the weaving is wrong. Reported at the first call or at start, never by running the method unprotected. */
public class IdempotencyConfigurationException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    public IdempotencyConfigurationException(String message) {
        super(message);
    }

    public IdempotencyConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
