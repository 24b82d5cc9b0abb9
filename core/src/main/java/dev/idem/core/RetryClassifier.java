package dev.idem.core;

import jakarta.annotation.Nonnull;

/**
 * Decides whether a failed attempt of an operation with a {@link RetryPolicy} may be retried, when the policy lists
 * no exception types of its own ({@code @Retry(on = {})}). Register one with
 * {@link IdemSettings.Builder#retryClassifier(RetryClassifier)} or in
 * {@code META-INF/services/dev.idem.core.RetryClassifier}.
 *
 * <p>The engine asks the registered classifiers in registration order; the first answer other than
 * {@link Verdict#UNDECIDED} counts. When all are undecided, the built-in classifier answers: an exception (or one
 * of its causes) that carries an HTTP status, as the exceptions of common HTTP clients and SDKs do (a
 * {@code statusCode()}, {@code getStatusCode()}, {@code getRawStatusCode()}, {@code status()} or {@code code()}
 * method, or one on its {@code getResponse()}/{@code response()}), is retryable for 429, 502, 503, 504 and 529 and
 * not for any other status; anything else is not retryable. It reads them by reflection, so Idem depends on no HTTP
 * client.
 *
 * <p>Whatever a classifier says, an {@link Error}, an interrupt, an exception listed in
 * {@code @Idempotent(noRetryFor)} and Idem's own exceptions are never retried. Called on the thread that ran the
 * failed attempt; it must be quick, must not block, and must not throw (an exception counts as
 * {@link Verdict#UNDECIDED} and is logged).
 */
@FunctionalInterface
public interface RetryClassifier {

    /** A classifier's answer. */
    enum Verdict {
        /** Running the body again may succeed (a rate limit, an overloaded or unreachable upstream). */
        RETRYABLE,
        /** Running the body again cannot help (a bad request, a refused payment). */
        NOT_RETRYABLE,
        /** This classifier does not know the failure: the next one decides. */
        UNDECIDED
    }

    /**
     * Classifies one failed attempt.
     *
     * @param failure what the attempt threw (for a {@code CompletionStage} method, what its stage failed with,
     *                unwrapped from {@code CompletionException})
     * @return whether the operation may run the body again
     */
    Verdict classify(@Nonnull Throwable failure);
}
