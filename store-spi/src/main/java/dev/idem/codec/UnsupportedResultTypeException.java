package dev.idem.codec;

/**
 * A result type a codec cannot store. The message names the part of the type at fault and how to fix it; the engine
 * reports it as a configuration error of the method, before the method runs.
 */
public class UnsupportedResultTypeException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * A refusal the codec worked out itself.
     *
     * @param message which part of the type cannot be stored, and how to fix it
     */
    public UnsupportedResultTypeException(String message) {
        super(message);
    }

    /**
     * A refusal caused by the codec's library (a serializer it cannot build), kept as the cause.
     *
     * @param message which part of the type cannot be stored, and how to fix it
     * @param cause   what the library reported
     */
    public UnsupportedResultTypeException(String message, Throwable cause) {
        super(message, cause);
    }
}
