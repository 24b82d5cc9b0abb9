package dev.idem.store.tck;

import dev.idem.store.RecordState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Races of {@value ContractGroup#RACERS} threads, {@value ContractGroup#ROUNDS} rounds each: exactly one winner among
 * claims of a fresh key, takeovers of a passed lease, supersedes of a passed window, an owner's completion against
 * takeovers, and an owner's renewal against takeovers; every losing claim sees the winner's token and the record is the
 * winner's.
 */
abstract class RaceContract extends ContractGroup {
    RaceContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void exactlyOneOfManyConcurrentClaimersWins() throws Exception {
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String key = key("race-" + round);

                List<Attempt> attempts = racers.race(claimers(key, i -> store(), NO_WINDOW));

                assertTheRecordIsTheWinners(key, theOneWinner(attempts, "claims of a fresh key, round " + round));
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void exactlyOneOfManyConcurrentTakeoversWins() throws Exception {
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String key = key("takeover-race-" + round);
                long abandoned = acquire(key, "crashed");
                advancePast(stored(key).leaseUntil());

                List<Attempt> attempts = racers.race(claimers(key, i -> store(), NO_WINDOW));

                Attempt winner = theOneWinner(attempts, "takeovers of a passed lease, round " + round);
                assertTrue(winner.token() > abandoned, "the takeover's token must exceed the abandoned one");
                assertTheRecordIsTheWinners(key, winner);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void exactlyOneOfManyConcurrentSupersedesWins() throws Exception {
        Duration window = Duration.ofMinutes(1);
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String key = key("supersede-race-" + round);
                long first = acquireVia(store(), key, "first", window);
                assertTrue(store().complete(key, first, new byte[] {1}, TTL));
                advancePast(stored(key).startedAt().plus(window));

                List<Attempt> attempts = racers.race(claimers(key, i -> store(), window));

                Attempt winner = theOneWinner(attempts, "supersedes of a passed window, round " + round);
                assertTrue(winner.token() > first, "the supersede's token must exceed the finished one");
                assertTheRecordIsTheWinners(key, winner);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCompletionRacingTakeoversHasExactlyOneWinner() throws Exception {
        raceAnOwnersWriteAgainstTakeovers("completion",
                (key, token) -> store().complete(key, token, new byte[] {1}, TTL), RecordState.COMPLETED, store());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRenewalRacingTakeoversHasExactlyOneWinner() throws Exception {
        raceAnOwnersWriteAgainstTakeovers("renewal", (key, token) -> store().renew(key, token, LEASE),
                RecordState.IN_PROGRESS, store());
    }
}
