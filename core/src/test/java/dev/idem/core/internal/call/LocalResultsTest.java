package dev.idem.core.internal.call;

import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.key.CanonicalEncoder;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * SEMANTICS.md section 3: a completed result answers a duplicate before its expiry (ttl) and before the end of its
 * window, never at or after either; the cache stays within its bound and drops what expired without being asked.
 */
class LocalResultsTest {
    private final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
    private final LocalResults results = new LocalResults(clock);
    private final CallKey key = new CallKey("n", "s", 1, 2);
    private final long now = clock.millis();
    private static final long PLAN = 7;

    @Test
    void anUnknownKeyHasNoResult() {
        assertNull(results.lookup(PLAN, key));
    }

    @Test
    void aResultCountsUntilTheMillisecondItExpires() {
        LocalResults.Entry entry = new LocalResults.Entry(PLAN, "v", new byte[0], Long.MAX_VALUE, now + 1000);
        results.put(key, entry);
        assertSame(entry, results.lookup(PLAN, new CallKey("other namespace", "s", 1, 2)), "found by an equal key");
        clock.advance(Duration.ofMillis(999));
        assertSame(entry, results.lookup(PLAN, key));
        clock.advance(Duration.ofMillis(1));
        assertNull(results.lookup(PLAN, key), "at the expiry it no longer counts");
    }

    @Test
    void aResultCountsUntilTheMillisecondItsWindowEnds() {
        LocalResults.Entry entry = new LocalResults.Entry(PLAN, "v", new byte[0], now + 500, now + 1000);
        results.put(key, entry);
        clock.advance(Duration.ofMillis(499));
        assertSame(entry, results.lookup(PLAN, key));
        clock.advance(Duration.ofMillis(1));
        assertNull(results.lookup(PLAN, key), "at the window's end a duplicate runs again");
    }

    @Test
    void aResultThatStoppedCountingDoesNotCountAgainWhenTheClockStepsBack() {
        results.put(key, new LocalResults.Entry(PLAN, "v", new byte[0], now + 500, now + 1000));
        clock.advance(Duration.ofMillis(500));
        assertNull(results.lookup(PLAN, key));
        clock.set(java.time.Instant.ofEpochMilli(now)); // even if time went back, the stale entry is gone
        assertNull(results.lookup(PLAN, key));
    }

    @Test
    void expiredResultsLeaveTheCacheWithoutBeingRead() {
        for (int i = 0; i < 100; i++) {
            results.put(new CallKey("n", "s", i, i), entry("v" + i)); // expire at now + 1000
        }
        results.put(new CallKey("n", "s", -1, -1), new LocalResults.Entry(PLAN, "w", new byte[0], now + 5000,
                now + 3_600_000)); // its window ends at now + 5000
        assertEquals(101, results.size());
        clock.advance(Duration.ofSeconds(3));
        results.put(key, new LocalResults.Entry(PLAN, "later", new byte[0], Long.MAX_VALUE, clock.millis() + 60_000));
        assertEquals(2, results.size(), "the expired ones are gone, none of them read");
        clock.advance(Duration.ofSeconds(3));
        results.put(key, new LocalResults.Entry(PLAN, "later", new byte[0], Long.MAX_VALUE, clock.millis() + 60_000));
        assertEquals(1, results.size(), "so is the one whose window ended");
    }

    @Test
    void aProbeFindsTheEntryOfTheKeyItStandsFor() {
        LocalResults.Entry entry = entry("v");
        results.put(key, entry);
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            CallKey.Probe probe = encoder.probe();
            assertSame(entry, results.lookup(PLAN, probe.set("n", "s", 1, 2, null)));
            assertNull(results.lookup(PLAN, probe.set("n", "s", 1, 3, null)), "another hash");
            assertNull(results.lookup(8, probe.set("n", "s", 1, 2, null)), "another plan's");
            clock.advance(Duration.ofMillis(1000));
            assertNull(results.lookup(PLAN, probe.set("n", "s", 1, 2, null)), "expired");
        } finally {
            encoder.release();
        }
    }

    @Test
    void aNewerResultReplacesAnOlderOne() {
        results.put(key, new LocalResults.Entry(PLAN, "old", new byte[0], Long.MAX_VALUE, now + 1000));
        LocalResults.Entry newer = new LocalResults.Entry(PLAN, "new", new byte[0], Long.MAX_VALUE, now + 2000);
        results.put(key, newer);
        clock.advance(Duration.ofMillis(1500));
        assertSame(newer, results.lookup(PLAN, key));
    }

    @Test
    void anEntryAnswersOnlyThePlanThatStoredItAndGoesWithThatPlan() {
        LocalResults.Entry mine = new LocalResults.Entry(PLAN, "v", new byte[0], Long.MAX_VALUE, now + 1000);
        CallKey other = new CallKey("n", "s", 3, 4);
        LocalResults.Entry theirs = new LocalResults.Entry(8, "w", new byte[0], Long.MAX_VALUE, now + 1000);
        results.put(key, mine);
        results.put(other, theirs);

        assertNull(results.lookup(8, key), "a reloaded class's plan is not handed the old plan's instances");
        results.forgetPlan(PLAN);

        assertNull(results.lookup(PLAN, key));
        assertSame(theirs, results.lookup(8, other), "other plans' entries stay");
    }

    @Test
    void theCacheNeverHoldsMoreThanItsBound() {
        for (int i = 0; i < 3 * LocalResults.MAX_ENTRIES; i++) {
            results.put(new CallKey("n", "s", i, i), entry("v" + i));
            assertTrue(results.size() <= LocalResults.MAX_ENTRIES, "size " + results.size() + " after " + i);
        }
        assertEquals(LocalResults.MAX_ENTRIES, results.size(), "full, not emptier than it need be");
        assertNotNull(results.lookup(PLAN, new CallKey("n", "s", 3L * LocalResults.MAX_ENTRIES - 1,
                3L * LocalResults.MAX_ENTRIES - 1)), "the newest stays");
    }

    @Test
    void aResultReadAgainAndAgainOutlivesAStreamOfNewOnes() {
        LocalResults.Entry hot = entry("hot");
        results.put(key, hot);
        for (int i = 0; i < 5 * LocalResults.MAX_ENTRIES; i++) {
            results.put(new CallKey("n", "s", 1_000_000 + i, i), entry("fresh"));
            if (i % 100 == 0) {
                assertSame(hot, results.lookup(PLAN, key), "after " + i + " new results");
            }
        }
        assertSame(hot, results.lookup(PLAN, key));
    }

    @Test
    void forgettingAPlanLeavesNoneOfItsValuesInTheCache() {
        for (int i = 0; i < 100; i++) {
            results.put(new CallKey("n", "s", i, i), entry("v" + i));
        }
        results.put(new CallKey("n", "s", -5, -5), new LocalResults.Entry(8, "w", new byte[0], Long.MAX_VALUE,
                now + 1000));
        assertTrue(results.holdsAnyOf(PLAN));
        results.forgetPlan(PLAN);
        assertFalse(results.holdsAnyOf(PLAN), "a reloaded class's loader is not kept by the cache");
        assertEquals(1, results.size());
        assertTrue(results.holdsAnyOf(8));
    }

    private LocalResults.Entry entry(Object value) {
        return new LocalResults.Entry(PLAN, value, new byte[0], Long.MAX_VALUE, now + 1000);
    }
}
