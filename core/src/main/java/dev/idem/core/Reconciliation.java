package dev.idem.core;

import jakarta.annotation.Nullable;

/**
 * A {@link Reconciler}'s answer: the abandoned work happened (with the result to store), or it did not. Immutable.
 */
public final class Reconciliation {
    private static final Reconciliation NOT_HAPPENED = new Reconciliation(false, null);

    private final boolean happened;
    private final Object result;

    private Reconciliation(boolean happened, Object result) {
        this.happened = happened;
        this.result = result;
    }

    /**
     * The work happened. {@code result} is stored as the key's result (encoded by the method's codec, within its
     * ttl) and returned to this caller and every duplicate; the method does not run again.
     *
     * @param result what the method would have returned: its value; for {@code Optional} methods the content (or
     *               the {@code Optional}), for {@code CompletionStage} methods the completed value, for
     *               {@code void} methods null. A value that is not of the method's declared result type fails the
     *               call closed, and nothing is stored
     * @return the answer
     */
    public static Reconciliation happened(@Nullable Object result) {
        return new Reconciliation(true, result);
    }

    /** {@return the answer "the work did not happen": the method runs under the caller's new claim} */
    public static Reconciliation didNotHappen() {
        return NOT_HAPPENED;
    }

    /** {@return whether the work happened} */
    public boolean happened() {
        return happened;
    }

    /** {@return the result to store when the work happened; null otherwise} */
    @Nullable
    public Object result() {
        return result;
    }

    @Override
    public String toString() {
        return happened ? "Reconciliation[happened]" : "Reconciliation[did not happen]";
    }
}
