package dev.idem;

/**
 * The key's first execution succeeded, but its result could not be stored (it could not be encoded, for instance a
 * runtime subtype the declared result type did not show). The caller that ran the method got its result; later calls
 * with the key get this exception until the record's ttl passes, so the work is never repeated by accident. Delete
 * the record to run the method again.
 */
public class IdempotencyResultNotStoredException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** @param message names the operation, the key and why the result could not be stored */
    public IdempotencyResultNotStoredException(String message) {
        super(message);
    }
}
