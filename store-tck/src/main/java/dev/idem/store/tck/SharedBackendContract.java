package dev.idem.store.tck;

import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Instances sharing a backend, through {@link IdempotencyStoreTck#createPeerStore}; each test is skipped, saying so,
 * for a store that gives no second instance: one winner among claims and takeovers split across two instances, an
 * owner's completion or renewal through one against takeovers through the other, tokens increasing across them, a
 * takeover through one fencing the old owner on the other, and every write through one seen by the other. A
 * per-instance lock, counter or cache fails.
 */
abstract class SharedBackendContract extends ContractGroup {
    SharedBackendContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void concurrentClaimsThroughTwoInstancesHaveOneWinner() throws Exception {
        IdempotencyStore other = peerStore();
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String key = key("peer-race-" + round);

                List<Attempt> attempts = racers.race(claimers(key, i -> i % 2 == 0 ? store() : other, NO_WINDOW));

                assertTheRecordIsTheWinners(key,
                        theOneWinner(attempts, "claims of a fresh key through two instances, round " + round));
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void concurrentTakeoversThroughTwoInstancesHaveOneWinner() throws Exception {
        IdempotencyStore other = peerStore();
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String key = key("peer-takeover-race-" + round);
                long abandoned = acquire(key, "crashed");
                advancePast(stored(key).leaseUntil());

                List<Attempt> attempts = racers.race(claimers(key, i -> i % 2 == 0 ? store() : other, NO_WINDOW));

                Attempt winner = theOneWinner(attempts, "takeovers through two instances, round " + round);
                assertTrue(winner.token() > abandoned, "the takeover's token must exceed the abandoned one");
                assertTheRecordIsTheWinners(key, winner);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCompletionThroughOneInstanceRacingTakeoversThroughTheOtherHasExactlyOneWinner() throws Exception {
        IdempotencyStore other = peerStore();
        raceAnOwnersWriteAgainstTakeovers("completion",
                (key, token) -> store().complete(key, token, new byte[] {1}, TTL), RecordState.COMPLETED, other);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRenewalThroughOneInstanceRacingTakeoversThroughTheOtherHasExactlyOneWinner() throws Exception {
        IdempotencyStore other = peerStore();
        raceAnOwnersWriteAgainstTakeovers("renewal", (key, token) -> store().renew(key, token, LEASE),
                RecordState.IN_PROGRESS, other);
    }

    @Test
    void tokensIncreaseAcrossInstances() throws Exception {
        IdempotencyStore other = peerStore();
        String key = key("peer-tokens");

        long first = acquireVia(store(), key, "a", NO_WINDOW);
        assertTrue(store().release(key, first));
        long second = acquireVia(other, key, "b", NO_WINDOW);
        assertTrue(second > first, "a claim through the other instance after a release: " + first + " then " + second);

        other.delete(key);
        long third = acquireVia(store(), key, "c", NO_WINDOW);
        assertTrue(third > second, "a claim through the first instance after a delete: " + second + " then " + third);

        advancePast(stored(key).leaseUntil());
        long fourth = acquireVia(other, key, "d", NO_WINDOW);
        assertTrue(fourth > third, "a takeover through the other instance: " + third + " then " + fourth);
    }

    @Test
    void aTakeoverThroughOneInstanceFencesTheOldOwnerOnTheOther() throws Exception {
        IdempotencyStore other = peerStore();
        String key = key("peer-fencing");
        long stale = acquireVia(store(), key, "a", NO_WINDOW);
        advancePast(stored(key).leaseUntil());
        long current = acquireVia(other, key, "b", NO_WINDOW);
        assertTrue(current > stale, "the takeover's token must exceed the old one: " + stale + " then " + current);

        assertRefusedAndChangesNothing(key, "the old owner's complete",
                () -> store().complete(key, stale, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "the old owner's fail",
                () -> store().fail(key, stale, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "the old owner's renew", () -> store().renew(key, stale, LEASE));
        assertRefusedAndChangesNothing(key, "the old owner's release", () -> store().release(key, stale));
        assertTrue(other.complete(key, current, new byte[] {2}, TTL), "the new owner completes");
    }

    @Test
    void writesThroughOneInstanceAreSeenByTheOther() throws Exception {
        IdempotencyStore other = peerStore();
        String key = key("peer-visibility");
        long token = acquireVia(store(), key, "a", NO_WINDOW);
        assertEquals(store().get(key), other.get(key), "a claim through one instance is seen by the other");

        time().advance(Duration.ofSeconds(10));
        assertTrue(store().renew(key, token, LEASE));
        assertEquals(store().get(key), other.get(key), "a renewal through one instance is seen by the other");

        assertTrue(store().complete(key, token, new byte[] {5}, TTL));
        assertEquals(store().get(key), other.get(key), "a completion through one instance is seen by the other");
        assertEquals(stored(key), existing(claimVia(other, key, "b", NO_WINDOW), "a claim through the other"),
                "a claim through the other instance loses to the completion");

        store().delete(key);
        assertEquals(Optional.empty(), other.get(key), "a deletion through one instance is seen by the other");
    }
}
