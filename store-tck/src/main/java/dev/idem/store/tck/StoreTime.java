package dev.idem.store.tck;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The store's "now", as the TCK reads and moves it. Every lease, window and expiry test moves time through this,
 * never by sleeping.
 *
 * <p>The default, {@link #of(MutableClock)}, is the clock the TCK hands to {@code createStore}: right for a store that
 * reads that clock (the in-memory store, or a JDBC store stamping rows with the engine's clock). A store whose time is
 * its server's (Redis {@code TIME}, SQL {@code now()}) cannot follow that clock; its test overrides
 * {@link IdempotencyStoreTck#createStoreTime} with a {@code StoreTime} that reads the server's time as the store does
 * and moves it, for example by shifting a test-only offset that the store adds to the server's time. Every instance
 * over the same backend ({@link IdempotencyStoreTck#createPeerStore}) must see the same time.
 */
public interface StoreTime {

    /** Now, as the store reads it. */
    Instant now();

    /** Moves the store's time forward by {@code duration} (positive), for every store instance over the backend. */
    void advance(Duration duration);

    /**
     * How far the store's time may move on its own between two steps of a test, plus any rounding of the instants the
     * store keeps (a server clock read in microseconds and stored in milliseconds rounds by up to one).
     *
     * <p>Zero, the default, is for a clock that moves only when told: the TCK then asserts stamps exactly and tests
     * each lease, window and expiry edge to the millisecond. Otherwise the TCK checks each stamp within that much of
     * readings of {@link #now()} taken just before and just after the operation, and keeps every "not yet passed"
     * step that far before its edge. Keep it to a second or two: the TCK's shortest interval is 10 seconds, and it
     * refuses a tolerance of {@value IdempotencyStoreTck#MAX_TOLERANCE_SECONDS} seconds or more.
     */
    default Duration tolerance() {
        return Duration.ZERO;
    }

    /** The store's time is {@code clock}, the clock the TCK handed to {@code createStore}; tolerance zero. */
    static StoreTime of(MutableClock clock) {
        Objects.requireNonNull(clock, "clock");
        return new StoreTime() {
            @Override
            public Instant now() {
                return clock.instant();
            }

            @Override
            public void advance(Duration duration) {
                clock.advance(duration);
            }

            @Override
            public String toString() {
                return "the injected clock";
            }
        };
    }

    /**
     * The store's time is its server's clock plus a test-only offset that every store instance over the backend adds
     * to it (zero in production); advancing moves the offset. The server's clock keeps running, so {@code tolerance}
     * says how far it may move between two steps of a test.
     *
     * @param serverNow    now as the store reads it: the server's clock plus the offset
     * @param offsetMillis the offset the store instances read, in milliseconds
     * @param tolerance    see {@link #tolerance()}
     * @return a time that moves only forward
     */
    static StoreTime serverClockWithOffset(Supplier<Instant> serverNow, AtomicLong offsetMillis, Duration tolerance) {
        Objects.requireNonNull(serverNow, "serverNow");
        Objects.requireNonNull(offsetMillis, "offsetMillis");
        Objects.requireNonNull(tolerance, "tolerance");
        return new StoreTime() {
            @Override
            public Instant now() {
                return serverNow.get();
            }

            @Override
            public void advance(Duration duration) {
                if (duration.isNegative()) {
                    throw new IllegalArgumentException("the server's time only moves forward: " + duration);
                }
                offsetMillis.addAndGet(duration.toMillis());
            }

            @Override
            public Duration tolerance() {
                return tolerance;
            }

            @Override
            public String toString() {
                return "the server's clock plus a test offset";
            }
        };
    }
}
