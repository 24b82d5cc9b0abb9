package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.TtlJitter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Expiry and windows: decided from timestamps at read time, to the millisecond (to the tolerance on a clock that moves
 * on its own); ttl jitter within [0, 10%]; a finished record superseded exactly when its window passes, and held until
 * expiry without one; a remembered failure replayed until its ttl passes.
 */
abstract class ExpiryContract extends ContractGroup {
    ExpiryContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    void expiryIsDecidedAtReadTime() {
        String key = key("expiry");
        long token = acquire(key, "a");
        assertTrue(store().complete(key, token, new byte[] {7}, TTL));
        Instant expiresAt = stored(key).expiresAt();

        advanceToJustBefore(expiresAt, "the expiry");
        assertTrue(store().get(key).isPresent(), "just before expiry the record is there");
        existing(claim(key, "b"), "a claim just before expiry must lose");

        advancePast(expiresAt);
        assertEquals(Optional.empty(), store().get(key), "at expiry the record is gone");
        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"),
                "a claim at expiry");
        assertNull(acquired.replaced(), "an expired record is absent, not replaced");
    }

    @Test
    void expiryCarriesJitterWithinTenPercentAndNeverShorter() {
        Set<Instant> distinct = new HashSet<>();
        Duration ttl = Duration.ofSeconds(100);
        for (int i = 0; i < 60; i++) {
            String key = key("jitter-" + i);
            long token = acquire(key, "a");
            assertTrue(store().complete(key, token, new byte[0], ttl));
            IdempotencyRecord record = stored(key);
            Duration kept = Duration.between(record.completedAt(), record.expiresAt());
            assertTrue(kept.compareTo(ttl) >= 0, "never shorter than stated: " + kept);
            assertTrue(kept.toMillis() <= ttl.toMillis() * (1 + TtlJitter.MAX_FRACTION), "at most +10%: " + kept);
            distinct.add(record.expiresAt());
        }
        assertTrue(distinct.size() > 10, "records written together must not expire together: " + distinct.size());
    }

    @Test
    void aFinishedRecordIsSupersededOnlyAfterTheWindow() {
        String key = key("window");
        Duration window = Duration.ofMinutes(5);
        long token = acquireVia(store(), key, "a", window);
        time().advance(Duration.ofSeconds(10));
        assertTrue(store().complete(key, token, new byte[] {1}, TTL));
        IdempotencyRecord finished = stored(key);
        Instant windowEnd = finished.startedAt().plus(window); // counted from the start, long before the ttl

        advanceToJustBefore(windowEnd, "the end of the window");
        IdempotencyRecord within = existing(claimVia(store(), key, "b", window), "a claim within the window must lose");
        assertEquals(RecordState.COMPLETED, within.state());

        advancePast(windowEnd);
        Instant before = time().now();
        ClaimOutcome.Acquired superseding = assertInstanceOf(ClaimOutcome.Acquired.class,
                claimVia(store(), key, "b", window), "a claim once the window passed supersedes");
        Instant after = time().now();
        assertTrue(superseding.fencingToken() > token);
        assertEquals(finished, superseding.replaced(), "the supersede reports the record it replaced");
        assertStamped("startedAt after a supersede (a new window)", before, stored(key).startedAt(), after);
    }

    @Test
    void withoutAWindowAFinishedRecordHoldsUntilItExpires() {
        String key = key("no-window");
        long token = acquire(key, "a");
        assertTrue(store().complete(key, token, new byte[] {1}, TTL));
        advanceToJustBefore(stored(key).expiresAt(), "the expiry");

        existing(claim(key, "b"), "without a window a finished record holds until it expires");
    }

    @Test
    void aRememberedFailureIsReturnedUntilItsTtlPasses() {
        String key = key("failed");
        long token = acquire(key, "a");
        assertTrue(store().fail(key, token, new byte[] {9, 9}, FAILURE_TTL));

        IdempotencyRecord failed = existing(claim(key, "b"), "a claim while the failure is remembered");
        assertEquals(RecordState.FAILED, failed.state());
        assertArrayEquals(new byte[] {9, 9}, failed.result());

        advancePast(failed.expiresAt());
        assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"), "a claim once the failure's ttl passed");
    }
}
