package dev.idem.samples;

import java.time.Duration;

/**
 * The upstream's HTTP 429: nothing was done, try again after {@link #getRetryAfter()}. Shaped like an HTTP client's
 * exception (a {@code statusCode()} and a {@code getRetryAfter()}), which is all Idem's built-in retry classifier and
 * Retry-After extractor need: they read both by reflection.
 */
public class RateLimitedException extends RuntimeException {
    private final long retryAfterMillis;

    public RateLimitedException(long retryAfterMillis) {
        super("429 Too Many Requests, Retry-After: " + retryAfterMillis + "ms");
        this.retryAfterMillis = retryAfterMillis;
    }

    public int statusCode() {
        return 429;
    }

    public Duration getRetryAfter() {
        return Duration.ofMillis(retryAfterMillis);
    }
}
