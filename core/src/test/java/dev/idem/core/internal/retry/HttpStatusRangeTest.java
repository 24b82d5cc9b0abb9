package dev.idem.core.internal.retry;

import dev.idem.core.RetryClassifier.Verdict;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which values the built-in classifier takes for an HTTP status: whole numbers from 100 to 599, read from the
 * failure or its response; anything else is no status (so the failure is undecided, not "not retryable").
 */
class HttpStatusRangeTest {
    private final HttpStatusRetryClassifier classifier = new HttpStatusRetryClassifier();

    /** A client exception whose statusCode() returns whatever the test gives it. */
    public static class WithStatus extends RuntimeException {
        private final Object status;

        public WithStatus(Object status) {
            this.status = status;
        }

        public Object statusCode() {
            return status;
        }
    }

    /** A status in statusCode() outside the range, and a valid one in getStatus(). */
    public static class TwoStatuses extends RuntimeException {
        public int statusCode() {
            return 600;
        }

        public int getStatus() {
            return 503;
        }
    }

    /** A response holding a response: only the failure's own response is read. */
    public static class NestedResponse extends RuntimeException {
        public Object getResponse() {
            return new Object() {
                @SuppressWarnings("unused")
                public WithStatus getResponse() {
                    return new WithStatus(503);
                }
            };
        }
    }

    /** JAX-RS-like: the status is on the response. */
    public static class OnResponse extends RuntimeException {
        public WithStatus getResponse() {
            return new WithStatus(503);
        }
    }

    @Test
    void statusesFrom100To599CountAndTheirNeighboursDoNot() {
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus(99)), "99 is no HTTP status");
        assertEquals(Verdict.NOT_RETRYABLE, classifier.classify(new WithStatus(100)), "100 is the lowest");
        assertEquals(Verdict.NOT_RETRYABLE, classifier.classify(new WithStatus(599)), "599 is the highest");
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus(600)), "600 is no HTTP status");
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus(0)));
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus(-503)));
    }

    @Test
    void theStatusMayBeAnyWholeNumberTypeButNotTextOrAFraction() {
        assertEquals(Verdict.RETRYABLE, classifier.classify(new WithStatus(503L)), "a long");
        assertEquals(Verdict.RETRYABLE, classifier.classify(new WithStatus((short) 503)), "a short");
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus(5_000_000_503L)),
                "a long that an int cast would wrap into the range");
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus("503")), "unparsable: text is not read");
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus(503.0)), "a fraction type");
        assertEquals(Verdict.UNDECIDED, classifier.classify(new WithStatus(null)));
    }

    @Test
    void aValueOutsideTheRangeIsPassedOverForTheNextName() {
        assertEquals(Verdict.RETRYABLE, classifier.classify(new TwoStatuses()));
    }

    @Test
    void onlyTheFailuresOwnResponseIsRead() {
        assertEquals(Verdict.RETRYABLE, classifier.classify(new OnResponse()));
        assertEquals(Verdict.UNDECIDED, classifier.classify(new NestedResponse()), "not a response's response");
    }

    @Test
    void theRetryableStatusesAreExactlyFive() {
        int retryable = 0;
        for (int status = 100; status <= 599; status++) {
            if (HttpStatusRetryClassifier.isRetryable(status)) {
                retryable++;
            }
        }
        assertEquals(5, retryable);
    }
}
