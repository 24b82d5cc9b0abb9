package dev.idem.core.internal.call;

import dev.idem.core.internal.key.CallKey;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * SEMANTICS.md section 3: whether a completed result still answers a duplicate is decided from its timestamps at
 * read time: before its expiry (ttl) and before the end of its window, never at or after either.
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
    void aStaleResultIsRemovedWhenItIsRead() {
        results.put(key, new LocalResults.Entry(PLAN, "v", new byte[0], now + 500, now + 1000));
        clock.advance(Duration.ofMillis(500));
        assertNull(results.lookup(PLAN, key));
        clock.set(java.time.Instant.ofEpochMilli(now)); // even if time went back, the stale entry is gone
        assertNull(results.lookup(PLAN, key));
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
}
