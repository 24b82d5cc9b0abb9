package dev.idem.core.internal.retry;

import dev.idem.core.RetryPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Full jitter, checked over many draws of a seeded random source: bounds, spread and the Retry-After floor. */
class BackOffTest {
    private static final int DRAWS = 20_000;
    private final RetryPolicy policy = RetryPolicy.custom().maxAttempts(10).base("100ms").cap("1s").build();

    @Test
    void theBoundDoublesFromTheBaseUpToTheCap() {
        assertEquals(Duration.ofMillis(100).toNanos(), BackOff.bound(policy, 1));
        assertEquals(Duration.ofMillis(200).toNanos(), BackOff.bound(policy, 2));
        assertEquals(Duration.ofMillis(400).toNanos(), BackOff.bound(policy, 3));
        assertEquals(Duration.ofMillis(800).toNanos(), BackOff.bound(policy, 4));
        assertEquals(Duration.ofSeconds(1).toNanos(), BackOff.bound(policy, 5));
        assertEquals(Duration.ofSeconds(1).toNanos(), BackOff.bound(policy, 1_000), "no overflow after many");
        RetryPolicy huge = RetryPolicy.custom().base("1d").cap(Duration.ofDays(365 * 1000)).build();
        assertTrue(BackOff.bound(huge, 80) > 0, "a cap beyond the nanosecond range saturates");
    }

    @Test
    void theBoundIsTheDoubledBaseUntilThatPassesTheCapWhateverTheirValues() {
        RetryPolicy odd = RetryPolicy.custom().maxAttempts(10).base(Duration.ofNanos(100)).cap(Duration.ofNanos(801))
                .build();
        assertEquals(800, BackOff.bound(odd, 4), "8 x base is still under a cap that is not a power of two of it");
        assertEquals(801, BackOff.bound(odd, 5), "16 x base passes it");
        for (int failed : new int[] {20, 40, 61, 62, 63, 64}) {
            assertEquals(Duration.ofSeconds(1).toNanos(), BackOff.bound(policy, failed),
                    "a doubling past the long range is the cap, attempt " + failed);
        }
    }

    @Test
    void pausesAreUniformOverZeroToTheBoundForEveryAttempt() {
        for (int failed = 1; failed <= 6; failed++) {
            BackOff backOff = new BackOff(new SplittableRandom(failed));
            long bound = BackOff.bound(policy, failed);
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            double sum = 0;
            int[] deciles = new int[10];
            for (int i = 0; i < DRAWS; i++) {
                long pause = backOff.pause(policy, failed, null).toNanos();
                assertTrue(pause >= 0 && pause <= bound, "pause " + pause + " outside [0, " + bound + "]");
                min = Math.min(min, pause);
                max = Math.max(max, pause);
                sum += pause;
                deciles[(int) Math.min(9, pause * 10 / (bound + 1))]++;
            }
            // Full jitter, not "bound plus a little": the draws reach both ends and fill every tenth evenly.
            assertTrue(min < bound / 100, "smallest draw " + min + " of bound " + bound);
            assertTrue(max > bound - bound / 100, "largest draw " + max + " of bound " + bound);
            assertEquals(0.5, sum / DRAWS / bound, 0.02, "mean over " + DRAWS + " draws, as a share of the bound");
            for (int count : deciles) {
                assertEquals(DRAWS / 10.0, count, DRAWS / 10.0 * 0.1, "a tenth of the range holds a tenth");
            }
        }
    }

    @Test
    void aRetryAfterIsTheLeastPauseAndIsCutToItsLimit() {
        BackOff lowest = new BackOff(fixed(0));
        assertEquals(Duration.ofMillis(700), lowest.pause(policy, 1, Duration.ofMillis(700)));
        assertEquals(Duration.ofSeconds(1), lowest.pause(policy, 1, Duration.ofMinutes(5)), "cut to the cap");
        RetryPolicy patient = RetryPolicy.from(policy).maxRetryAfter("2m").build();
        assertEquals(Duration.ofMinutes(2), lowest.pause(patient, 1, Duration.ofHours(1)), "cut to maxRetryAfter");
        BackOff highest = new BackOff(fixed(Long.MAX_VALUE));
        assertEquals(Duration.ofMillis(400), highest.pause(policy, 3, Duration.ofMillis(50)),
                "a drawn pause longer than the Retry-After stands");
    }

    /** Draws {@code bound - 1} (the top) when given MAX_VALUE, else 0 (the bottom). */
    private static RandomGenerator fixed(long which) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return which;
            }

            @Override
            public long nextLong(long bound) {
                return which == Long.MAX_VALUE ? bound - 1 : 0;
            }
        };
    }
}
