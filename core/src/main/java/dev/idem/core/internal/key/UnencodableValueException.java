package dev.idem.core.internal.key;

/** Thrown inside the encoder; the caller adds the method and parameter and rethrows a public exception type. */
public final class UnencodableValueException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnencodableValueException(String message) {
        super(message, null, false, false);
    }
}
