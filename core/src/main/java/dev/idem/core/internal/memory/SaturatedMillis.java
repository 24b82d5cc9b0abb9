package dev.idem.core.internal.memory;

import java.time.Duration;

/**
 * Millisecond arithmetic that saturates at the ends of a long instead of wrapping: a ttl, lease or window near
 * {@link Long#MAX_VALUE} milliseconds (such as {@code ChronoUnit.FOREVER}) means "kept for ever", never a time in
 * the past.
 */
public final class SaturatedMillis {
    private SaturatedMillis() {
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} where the sum would overflow. */
    public static long plus(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * A duration in whole milliseconds, rounded up so that no lease, window or ttl is cut short; saturated at the
     * ends of a long (a ttl of {@code ChronoUnit.FOREVER} is kept for ever rather than refused with an
     * {@link ArithmeticException}).
     */
    public static long ceilMillis(Duration d) {
        long millis;
        try {
            millis = d.toMillis();
        } catch (ArithmeticException beyondLong) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return d.getNano() % 1_000_000 == 0 ? millis : plus(millis, 1);
    }
}
