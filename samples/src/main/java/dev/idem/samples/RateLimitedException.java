package dev.idem.samples;

/** The upstream's HTTP 429: nothing was done, try again after {@link #retryAfterMillis()}. */
public class RateLimitedException extends RuntimeException {
    private final long retryAfterMillis;

    public RateLimitedException(long retryAfterMillis) {
        super("429 Too Many Requests, Retry-After: " + retryAfterMillis + "ms");
        this.retryAfterMillis = retryAfterMillis;
    }

    public long retryAfterMillis() {
        return retryAfterMillis;
    }
}
