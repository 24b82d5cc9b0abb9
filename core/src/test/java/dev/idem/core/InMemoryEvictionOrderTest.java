package dev.idem.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Why the in-memory store orders its own evictions rather than leave them to Caffeine (see the store's class
 * comment): a bound of {@value #BOUND} records, {@value #BOUND} records read a few times, then a flood of
 * {@value #FLOOD} new keys each claimed, completed and never read again, as first calls are. A retry comes soon after
 * its first call, so what a duplicate needs is the newest records.
 */
class InMemoryEvictionOrderTest {
    private static final int BOUND = 1_000;
    private static final int FLOOD = 5 * BOUND;
    /** The newest records the store keeps after a batch of evictions: one percent below its bound. */
    private static final int NEWEST = BOUND - BOUND / 100;

    @Test
    void theStoreKeepsEveryRecordAmongTheNewestOfAFloodAndEvictsTheOldRecordsFirst() {
        MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, BOUND, Long.MAX_VALUE);
        for (int i = 0; i < BOUND; i++) {
            InMemoryBoundTest.completed(store, "old-" + i, Duration.ofHours(1));
            store.get("old-" + i);
            store.get("old-" + i);
        }
        for (int i = 0; i < FLOOD; i++) {
            clock.advance(Duration.ofMillis(1));
            InMemoryBoundTest.completed(store, "new-" + i, Duration.ofHours(1));
        }

        long newestKept = IntStream.range(FLOOD - NEWEST, FLOOD).filter(i -> store.get("new-" + i).isPresent()).count();
        long oldKept = IntStream.range(0, BOUND).filter(i -> store.get("old-" + i).isPresent()).count();
        assertEquals(NEWEST, newestKept, "every one of the newest records still answers its duplicate");
        assertEquals(0, oldKept, "the old records went first");
    }

    @Test
    void caffeinesSizePolicyEvictsMostOfTheNewestRecordsOfAFloodAndKeepsTheOldOnes() {
        Cache<String, Object> cache = Caffeine.newBuilder().maximumSize(BOUND).executor(Runnable::run).build();
        Object record = new Object();
        for (int i = 0; i < BOUND; i++) {
            cache.put("old-" + i, record);
            cache.getIfPresent("old-" + i);
            cache.getIfPresent("old-" + i);
        }
        for (int i = 0; i < FLOOD; i++) {
            cache.put("new-" + i, record);
        }

        long newestKept = IntStream.range(FLOOD - NEWEST, FLOOD)
                .filter(i -> cache.asMap().containsKey("new-" + i)).count();
        long oldKept = IntStream.range(0, BOUND).filter(i -> cache.asMap().containsKey("old-" + i)).count();
        assertTrue(newestKept < NEWEST / 2, "kept " + newestKept + " of the newest " + NEWEST);
        assertTrue(oldKept > 2 * newestKept, "kept " + oldKept + " of the old " + BOUND + ", " + newestKept
                + " of the newest " + NEWEST);
    }
}
