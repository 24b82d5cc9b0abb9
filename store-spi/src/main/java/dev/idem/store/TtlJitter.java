package dev.idem.store;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The expiry every store applies: the stated ttl plus a uniform jitter of up to 10%, never less than stated, so
 * records written together do not expire (and get recomputed) together.
 */
public final class TtlJitter {
    /** The largest jitter, as a fraction of the ttl. */
    public static final double MAX_FRACTION = 0.10;

    private TtlJitter() {
    }

    /**
     * An expiry in {@code [now + ttl, now + ttl * 1.1]}.
     *
     * @param now the store's current time, from which the ttl counts
     * @param ttl how long the record is kept at least; the jitter is drawn uniformly in whole milliseconds from zero
     *            to {@link #MAX_FRACTION} of it (rounded down), both included, so a ttl under 10 ms gets none
     * @return {@code now} plus {@code ttl} plus the jitter; never earlier than {@code now.plus(ttl)}
     */
    public static Instant expiresAt(Instant now, Duration ttl) {
        long ttlMillis = ttl.toMillis();
        long jitterBound = (long) (ttlMillis * MAX_FRACTION);
        long jitter = jitterBound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(jitterBound + 1);
        // One Instant rather than two (now.plus(ttl).plusMillis(jitter)): this is on the path of every completion.
        return Instant.ofEpochSecond(now.getEpochSecond() + ttl.getSeconds(),
                now.getNano() + ttl.getNano() + jitter * 1_000_000L);
    }
}
