package dev.idem.store.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A server's clock as a store test sees it: it runs on its own (every reading moves it on by 1.001 ms, so stamps
 * and readings never coincide and microseconds are lost when a store keeps milliseconds), and a test can shift it
 * forward. It starts years away from the JVM clock, so a store reading the wrong clock shows at once.
 */
final class ServerClock extends Clock {
    private static final Duration TICK = Duration.ofNanos(1_001_000);

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2031-07-01T00:00:00Z"));

    /** The store's time over this clock, as a server-backed store's test would supply it. */
    StoreTime asStoreTime() {
        return new StoreTime() {
            @Override
            public Instant now() {
                return instant();
            }

            @Override
            public void advance(Duration duration) {
                if (duration.isNegative()) {
                    throw new IllegalArgumentException("a server's time only moves forward: " + duration);
                }
                now.updateAndGet(t -> t.plus(duration));
            }

            @Override
            public Duration tolerance() {
                return Duration.ofSeconds(1);
            }
        };
    }

    @Override
    public Instant instant() {
        return now.getAndUpdate(t -> t.plus(TICK));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the server's clock has one zone");
    }
}
