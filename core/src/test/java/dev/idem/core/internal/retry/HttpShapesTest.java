package dev.idem.core.internal.retry;

import dev.idem.core.RetryClassifier.Verdict;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The built-in classifier and Retry-After extractor read the shapes of common HTTP clients' exceptions by
 * reflection. Each shape below mirrors one client's (named in its comment) without depending on it.
 */
class HttpShapesTest {
    private static final Instant NOW = Instant.parse("2026-03-01T08:00:00Z");
    private final HttpStatusRetryClassifier classifier = new HttpStatusRetryClassifier();
    private final RetryAfterHeaders retryAfter = new RetryAfterHeaders();

    /** OpenAI / Anthropic Java SDKs: statusCode() and headers(). */
    public static class SdkException extends RuntimeException {
        private final int status;
        private final HttpHeaders headers;

        public SdkException(int status, Map<String, List<String>> headers) {
            this.status = status;
            this.headers = HttpHeaders.of(headers, (a, b) -> true);
        }

        public int statusCode() {
            return status;
        }

        public HttpHeaders headers() {
            return headers;
        }
    }

    /** Spring's HttpStatusCodeException: getStatusCode() returns an HttpStatusCode with value(). */
    public static class SpringLikeException extends RuntimeException {
        private final int status;
        private final Map<String, List<String>> headers;

        public SpringLikeException(int status, Map<String, List<String>> headers) {
            this.status = status;
            this.headers = headers;
        }

        public StatusCode getStatusCode() {
            return () -> status;
        }

        public Map<String, List<String>> getResponseHeaders() {
            return headers;
        }
    }

    /** Spring's HttpStatusCode. */
    public interface StatusCode {
        int value();
    }

    /** JAX-RS WebApplicationException: getResponse().getStatus(), getResponse().getHeaderString(name). */
    public static class JaxRsLikeException extends RuntimeException {
        private final Response response;

        public JaxRsLikeException(int status, String retryAfter) {
            this.response = new Response(status, retryAfter);
        }

        public Response getResponse() {
            return response;
        }
    }

    /** JAX-RS Response. */
    public static class Response {
        private final int status;
        private final String retryAfter;

        Response(int status, String retryAfter) {
            this.status = status;
            this.retryAfter = retryAfter;
        }

        public int getStatus() {
            return status;
        }

        public String getHeaderString(String name) {
            return "Retry-After".equalsIgnoreCase(name) ? retryAfter : null;
        }
    }

    /** An application's own rate-limit exception exposing getRetryAfter(). */
    public static class RateLimited extends RuntimeException {
        private final Object retryAfter;

        public RateLimited(Object retryAfter) {
            this.retryAfter = retryAfter;
        }

        public Object getRetryAfter() {
            return retryAfter;
        }
    }

    /** Has a status, but in a class Idem may not call: never read by force. */
    private static class Hidden extends RuntimeException {
        @SuppressWarnings("unused")
        public int statusCode() {
            return 503;
        }
    }

    @Test
    void retryableStatusesAreTheOverloadAndGatewayOnesWhateverTheShape() {
        for (int status : new int[] {429, 502, 503, 504, 529}) {
            assertEquals(Verdict.RETRYABLE, classifier.classify(new SdkException(status, Map.of())), "" + status);
            assertEquals(Verdict.RETRYABLE, classifier.classify(new SpringLikeException(status, Map.of())));
            assertEquals(Verdict.RETRYABLE, classifier.classify(new JaxRsLikeException(status, null)));
        }
        for (int status : new int[] {400, 401, 403, 404, 409, 422, 500, 501}) {
            assertEquals(Verdict.NOT_RETRYABLE, classifier.classify(new SdkException(status, Map.of())), "" + status);
            assertEquals(Verdict.NOT_RETRYABLE, classifier.classify(new SpringLikeException(status, Map.of())));
        }
    }

    @Test
    void aStatusIsFoundThroughWrappersAndNothingElseIsGuessed() {
        assertEquals(Verdict.RETRYABLE, classifier.classify(new UncheckedIOException("wrapped",
                new java.io.IOException(new SdkException(503, Map.of())))));
        assertEquals(Verdict.UNDECIDED, classifier.classify(new IllegalStateException("no status")));
        assertEquals(Verdict.UNDECIDED, classifier.classify(new Hidden()), "not called through a private class");
    }

    @Test
    void aStatusIsLookedForInTheFailureAndItsFirstSevenCausesOnly() {
        assertEquals(Verdict.RETRYABLE, classifier.classify(wrapped(new SdkException(503, Map.of()), 7)));
        assertEquals(Verdict.UNDECIDED, classifier.classify(wrapped(new SdkException(503, Map.of()), 8)),
                "eight wrappers deep: past the chain's bound of eight");
    }

    @Test
    void aRetryAfterOfSecondsHasAtMostTwelveDigits() {
        assertEquals(Duration.ofSeconds(999_999_999_999L), RetryAfterHeaders.parseHeader("999999999999", NOW));
        assertEquals(null, RetryAfterHeaders.parseHeader("1000000000000", NOW), "thirteen digits: unreadable");
        assertEquals(null, RetryAfterHeaders.parseHeader("  ", NOW));
    }

    /** {@code failure} under {@code depth} wrappers. */
    private static RuntimeException wrapped(RuntimeException failure, int depth) {
        RuntimeException outer = failure;
        for (int i = 0; i < depth; i++) {
            outer = new IllegalStateException("wrapper " + i, outer);
        }
        return outer;
    }

    @Test
    void retryAfterIsReadFromGettersAndHeadersAsSecondsOrHttpDates() {
        assertEquals(Optional.of(Duration.ofSeconds(7)), retryAfter.find(new SdkException(429,
                Map.of("retry-after", List.of("7"))), NOW), "java.net.http headers, any case");
        assertEquals(Optional.of(Duration.ofSeconds(90)), retryAfter.find(new SpringLikeException(503,
                Map.of("Retry-After", List.of("Sun, 01 Mar 2026 08:01:30 GMT"))), NOW), "an HTTP date");
        assertEquals(Optional.of(Duration.ZERO), retryAfter.find(new JaxRsLikeException(503,
                "Sun, 01 Mar 2026 07:00:00 GMT"), NOW), "a date in the past: no pause");
        assertEquals(Optional.of(Duration.ofSeconds(2)), retryAfter.find(new JaxRsLikeException(503, "2"), NOW));
        assertEquals(Optional.of(Duration.ofMillis(1500)), retryAfter.find(new RateLimited(Duration.ofMillis(1500)),
                NOW));
        assertEquals(Optional.of(Duration.ofSeconds(3)), retryAfter.find(new RateLimited(3L), NOW), "seconds");
        assertEquals(Optional.of(Duration.ofSeconds(5)), retryAfter.find(new RateLimited(Optional.of("5")), NOW));
        assertEquals(Optional.of(Duration.ofSeconds(60)), retryAfter.find(new RateLimited(NOW.plusSeconds(60)), NOW));
        assertEquals(Optional.of(Duration.ofSeconds(4)), retryAfter.find(new RuntimeException(
                new SdkException(429, Map.of("Retry-After", List.of("4")))), NOW), "through a wrapper");
    }

    @Test
    void aMissingOrUnreadableRetryAfterIsNoPause() {
        assertEquals(Optional.empty(), retryAfter.find(new SdkException(429, Map.of()), NOW));
        assertEquals(Optional.empty(), retryAfter.find(new SdkException(429,
                Map.of("Retry-After", List.of("soon"))), NOW));
        assertEquals(Optional.empty(), retryAfter.find(new RateLimited(Duration.ofSeconds(-1)), NOW));
        assertEquals(Optional.empty(), retryAfter.find(new RateLimited(null), NOW));
        assertEquals(Optional.empty(), retryAfter.find(new IllegalStateException(), NOW));
    }
}
