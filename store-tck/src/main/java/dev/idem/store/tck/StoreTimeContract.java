package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The store's own time: a claim's answer reports it, if it reports a time at all; a JVM clock running ahead or behind
 * changes no stamp, lease or expiry. The tests of the JVM clock run only when the store's time does not follow the
 * injected clock (they move that clock and look), and are skipped, saying so, otherwise.
 */
abstract class StoreTimeContract extends ContractGroup {
    StoreTimeContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    /**
     * A claim's answer may report the store's time (engines translate the record's instants into their own clock
     * with it); when it does, that is the time the store keeps, as moved here, not the JVM's clock. Covers a fresh
     * claim, a losing one, a takeover and a supersede.
     */
    @Test
    void aClaimReportsTheStoresTimeIfAny() {
        String key = key("store-time");
        time().advance(Duration.ofHours(1)); // away from the JVM's clocks, for a store that keeps its own time
        Instant before = time().now();
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, assertReportsTheStoresTime("a fresh claim",
                before, claim(key, "a")), "a claim of an absent key").fencingToken();

        time().advance(Duration.ofSeconds(5));
        existing(assertReportsTheStoresTime("a losing claim", time().now(), claim(key, "b")), "a claim while the lease"
                + " holds");

        advancePast(stored(key).leaseUntil());
        ClaimOutcome takeover = assertReportsTheStoresTime("a takeover", time().now(), claim(key, "b"));
        token = assertInstanceOf(ClaimOutcome.Acquired.class, takeover, "a claim once the lease passed")
                .fencingToken();

        assertTrue(store().complete(key, token, new byte[] {1}, TTL));
        time().advance(Duration.ofSeconds(5));
        existing(assertReportsTheStoresTime("a claim of a completed key", time().now(), claim(key, "c")),
                "a claim of a completed key");
        Duration window = Duration.ofSeconds(10);
        advancePast(stored(key).startedAt().plus(window));
        assertInstanceOf(ClaimOutcome.Acquired.class, assertReportsTheStoresTime("a supersede", time().now(),
                claimVia(store(), key, "b", window)), "a claim once the window passed");
    }

    /** Asserts the answer's store time, if any, is the store's time since {@code before}; returns the answer. */
    private ClaimOutcome assertReportsTheStoresTime(String claim, Instant before, ClaimOutcome answer) {
        Instant after = time().now();
        if (answer.storeTime() != null) {
            assertStamped("the store's time reported by " + claim, before, answer.storeTime(), after);
        }
        return answer;
    }

    @Test
    void aJvmClockRunningAheadNeitherStampsRecordsNorEndsLeasesOrRecords() {
        assumeTheStoreKeepsItsOwnTime();
        String key = key("jvm-ahead");
        clock().advance(Duration.ofHours(1));

        Instant before = time().now();
        long token = acquire(key, "a");
        Instant after = time().now();
        assertStamped("startedAt with the JVM clock an hour ahead", before, stored(key).startedAt(), after);

        clock().advance(LEASE.multipliedBy(2));
        existing(claim(key, "b"), "a lease that holds in the store's time must hold whatever the JVM clock says");

        assertTrue(store().complete(key, token, new byte[] {1}, TTL));
        clock().advance(TTL.multipliedBy(2));
        assertTrue(store().get(key).isPresent(), "a record that has not expired in the store's time must be there");
    }

    @Test
    void aJvmClockRunningBehindKeepsNoLeaseOrRecordAlive() {
        assumeTheStoreKeepsItsOwnTime();
        String key = key("jvm-behind");
        acquire(key, "a");
        clock().set(clock().instant().minus(Duration.ofHours(1)));

        advancePast(stored(key).leaseUntil());
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"),
                "a lease that passed in the store's time must pass whatever the JVM clock says").fencingToken();

        assertTrue(store().fail(key, token, new byte[] {1}, FAILURE_TTL));
        advancePast(stored(key).expiresAt());
        assertEquals(Optional.empty(), store().get(key),
                "a record that expired in the store's time must be gone whatever the JVM clock says");
    }

    private void assumeTheStoreKeepsItsOwnTime() {
        Instant jvmBefore = clock().instant();
        Instant storeBefore = time().now();
        clock().advance(Duration.ofDays(1));
        boolean followsTheJvmClock = !time().now().isBefore(storeBefore.plus(Duration.ofDays(1)));
        clock().set(jvmBefore);
        assumeFalse(followsTheJvmClock, "the store's time is the injected clock (createStoreTime returns the"
                + " default), so a skewed JVM clock is the store's time and there is nothing to ignore; this applies"
                + " to stores that keep their server's time");
    }
}
