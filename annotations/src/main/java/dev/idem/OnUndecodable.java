package dev.idem;

/**
 * What a call does when the stored result of its key cannot be decoded by the current code, typically because the
 * result's class changed incompatibly in a new release. The operation did happen, so running it again is not safe
 * for every method: the default refuses, and a method whose work may be repeated opts in.
 */
public enum OnUndecodable {
    /**
     * Throw {@link IdempotencyStoreException} naming the key, when the execution ran, the decoding problem and how to
     * clear the record; the method does not run. Every call on the key gets it until the record expires or is
     * deleted.
     */
    FAIL,
    /**
     * Run the method again under a new claim (the unreadable record is superseded atomically, so one caller runs) and
     * emit a {@code RESULT_UNREADABLE} event.
     */
    RUN_AGAIN
}
