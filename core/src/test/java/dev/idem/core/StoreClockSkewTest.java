package dev.idem.core;

import dev.idem.Idempotent;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An engine whose clock is behind its store's keeps the results it replayed from the store no longer than the store
 * keeps them: the record's instants are the store's, translated into the engine's clock with the time the store
 * reported in its answer. Engine Z runs on the store's clock; engine B, sharing the store, is five minutes behind.
 */
class StoreClockSkewTest {
    private static final Duration SKEW = Duration.ofMinutes(5);

    private final MutableClock storeClock = MutableClock.startingAt("2026-03-01T08:05:00Z");
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(storeClock);
    private final EngineFixture z = new EngineFixture(store, b -> b.clock(storeClock));
    private final EngineFixture behind = new EngineFixture(store, b -> {
    });
    private final Reports reports = new Reports();

    static class Reports {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "skew:expiring", ttl = "1m")
        int expiring(String id) {
            return runs.incrementAndGet();
        }

        @Idempotent(scope = "skew:windowed", window = "1m", ttl = "30m")
        int windowed(String id) {
            return runs.incrementAndGet();
        }
    }

    @AfterEach
    void close() {
        z.close();
        behind.close();
    }

    @Test
    void aCopyReplayedFromTheStoreIsNotReplayedAfterTheRecordExpiredByTheStoresClock() throws Throwable {
        assertEquals(SKEW, Duration.between(behind.clock.instant(), storeClock.instant()), "the engine is behind");
        assertEquals(1, z.call(reports, "expiring", "r1"));
        assertEquals(1, behind.call(reports, "expiring", "r1"), "replayed from the store");
        assertEquals("from the store", behind.last(IdempotencyEventType.REPLAYED).detail());
        assertEquals(1, behind.call(reports, "expiring", "r1"), "replayed from the engine's copy");
        assertEquals("from this JVM's results", behind.last(IdempotencyEventType.REPLAYED).detail());

        // Past the ttl and its jitter (up to 10%) by the store's clock; by the engine's, the copy's naive expiry (the
        // store's instant read on the engine's clock) is minutes away.
        advanceBoth(Duration.ofSeconds(67));
        assertEquals(2, behind.call(reports, "expiring", "r1"),
                "the record expired by the store's clock, so the call runs again instead of replaying the copy");
        assertEquals(2, reports.runs.get());
    }

    @Test
    void aCopyReplayedFromTheStoreRunsAgainAfterTheWindowByTheStoresClock() throws Throwable {
        assertEquals(1, z.call(reports, "windowed", "w1"));
        assertEquals(1, behind.call(reports, "windowed", "w1"), "replayed from the store");
        assertEquals(1, behind.call(reports, "windowed", "w1"), "replayed from the engine's copy");
        assertEquals("from this JVM's results", behind.last(IdempotencyEventType.REPLAYED).detail());

        advanceBoth(Duration.ofMinutes(1).plusSeconds(1)); // past the window by the store's clock
        assertEquals(2, behind.call(reports, "windowed", "w1"),
                "the window passed by the store's clock, so the call runs again instead of replaying the copy");
        assertEquals(1, behind.count(IdempotencyEventType.LATE_DUPLICATE), "the store superseded the record");
    }

    private void advanceBoth(Duration by) {
        storeClock.advance(by);
        behind.clock.advance(by);
    }
}
