package dev.idem.core.internal.retry;

import dev.idem.core.RetryPolicy;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential back-off with full jitter: the pause after the {@code n}-th failed attempt is drawn uniformly from
 * {@code [0, min(cap, base * 2^(n-1))]}, so clients that failed together do not come back together. A
 * {@code Retry-After} the failure carried is the least pause, cut to the policy's {@code maxRetryAfter}: the
 * upstream said when it can answer, and coming earlier only meets the same refusal.
 */
public final class BackOff {
    private final RandomGenerator random;

    /** @param random where pauses are drawn from; tests give a seeded or fixed one */
    public BackOff(RandomGenerator random) {
        this.random = random;
    }

    /**
     * The pause after failed attempt {@code failed} (1 for the first attempt).
     *
     * @param retryAfter what the failure asked for, or null
     */
    public Duration pause(RetryPolicy policy, int failed, Duration retryAfter) {
        long drawn = random.nextLong(bound(policy, failed) + 1);
        if (retryAfter != null) {
            drawn = Math.max(drawn, nanos(retryAfter.compareTo(policy.maxRetryAfter()) < 0 ? retryAfter
                    : policy.maxRetryAfter()));
        }
        return Duration.ofNanos(drawn);
    }

    /** {@code min(cap, base * 2^(failed-1))} in nanoseconds, without overflowing. */
    static long bound(RetryPolicy policy, int failed) {
        long cap = nanos(policy.cap());
        long base = nanos(policy.base());
        int doublings = failed - 1;
        if (doublings >= 62 || base > (cap >> doublings)) {
            return cap;
        }
        return Math.min(cap, base << doublings);
    }

    /** A duration in nanoseconds, saturated at about 146 years (one bit short, so bound + 1 cannot overflow). */
    private static long nanos(Duration d) {
        try {
            return Math.min(d.toNanos(), Long.MAX_VALUE / 2);
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE / 2;
        }
    }
}
