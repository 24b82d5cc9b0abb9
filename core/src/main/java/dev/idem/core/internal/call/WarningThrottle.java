package dev.idem.core.internal.call;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets at most one warning through per interval on the engine's clock and counts the ones it held back, so a flood
 * (every call of an outage) is one line a minute saying how many it stands for. Thread-safe; it takes no lock.
 */
final class WarningThrottle {
    private final Clock clock;
    private final long intervalMillis;
    private final AtomicLong heldBack = new AtomicLong();
    private final AtomicLong nextAt = new AtomicLong(Long.MIN_VALUE);

    WarningThrottle(Clock clock, long intervalMillis) {
        this.clock = clock;
        this.intervalMillis = intervalMillis;
    }

    /**
     * Whether a warning may be written now; when not, it is counted as held back.
     *
     * @return -1 when the warning is held back, else how many were held back since the last one written
     */
    long pass() {
        long now = clock.millis();
        long due = nextAt.get();
        if (now >= due && nextAt.compareAndSet(due, now + intervalMillis)) {
            return heldBack.getAndSet(0);
        }
        heldBack.incrementAndGet();
        return -1;
    }
}
