package dev.idem.core.internal.retry;

import dev.idem.core.RetryClassifier;

/**
 * The built-in {@link RetryClassifier}: a failure that carries an HTTP status, or whose cause does, is retryable
 * for 429 (too many requests), 502 (bad gateway), 503 (unavailable), 504 (gateway timeout) and 529 (overloaded),
 * and not for any other status; a failure without a status is {@link Verdict#UNDECIDED}.
 *
 * <p>The status is read by reflection, so Idem depends on no client: a no-argument {@code statusCode()},
 * {@code getStatusCode()}, {@code getRawStatusCode()}, {@code status()}, {@code getStatus()} or {@code code()}
 * returning a number, or an object with {@code value()}, {@code getStatusCode()}, {@code statusCode()} or
 * {@code code()} (Spring's {@code HttpStatusCode}, JAX-RS's {@code Response.Status}); else the same on the
 * failure's {@code getResponse()}/{@code response()} (JAX-RS, Retrofit). Only values from 100 to 599 count.
 */
public final class HttpStatusRetryClassifier implements RetryClassifier {
    private static final String[] STATUS = {"statusCode", "getStatusCode", "getRawStatusCode", "status", "getStatus",
            "code"};
    private static final String[] STATUS_VALUE = {"value", "getStatusCode", "statusCode", "code"};
    private static final String[] RESPONSE = {"getResponse", "response"};

    @Override
    public Verdict classify(Throwable failure) {
        for (Throwable t : Causes.of(failure)) {
            int status = status(t, true);
            if (status > 0) {
                return isRetryable(status) ? Verdict.RETRYABLE : Verdict.NOT_RETRYABLE;
            }
        }
        return Verdict.UNDECIDED;
    }

    /** Whether an upstream answering {@code status} may answer differently later. */
    static boolean isRetryable(int status) {
        return status == 429 || status == 502 || status == 503 || status == 504 || status == 529;
    }

    /** The HTTP status {@code source} carries, or -1. */
    static int status(Object source, boolean lookAtResponse) {
        for (String name : STATUS) {
            int status = asStatus(PublicGetters.call(source, name, null));
            if (status > 0) {
                return status;
            }
        }
        if (lookAtResponse) {
            Object response = PublicGetters.first(source, RESPONSE);
            if (response != PublicGetters.ABSENT && response != null) {
                return status(response, false);
            }
        }
        return -1;
    }

    private static int asStatus(Object value) {
        if (value == PublicGetters.ABSENT || value == null) {
            return -1;
        }
        if (!(value instanceof Number)) {
            value = PublicGetters.first(value, STATUS_VALUE);
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Long) {
            long status = ((Number) value).longValue();
            return status >= 100 && status <= 599 ? (int) status : -1;
        }
        return -1;
    }
}
