package dev.idem.codec;

/**
 * A result type a codec cannot store. The message names the part of the type at fault and how to fix it; the engine
 * reports it as a configuration error of the method, before the method runs.
 */
public class UnsupportedResultTypeException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message which part of the type cannot be stored, and how to fix it */
    public UnsupportedResultTypeException(String message) {
        super(message);
    }
}
