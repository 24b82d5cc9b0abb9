package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One group of the {@link IdempotencyStoreTck}'s tests: its {@code @Nested} classes extend a subclass of this, so the
 * tests run once per store, against the store the kit opened for the test, with what every group writes its tests in
 * (claims, reads, the store's time moved to an edge, races and their one winner).
 */
abstract class ContractGroup {
    static final Duration NO_WINDOW = Duration.ZERO;
    static final Duration FAILURE_TTL = Duration.ofSeconds(10);
    static final int RACERS = 32;
    static final int ROUNDS = 20;
    /** In the races of an owner's write against takeovers: claimers per key, and keys contested at once. */
    static final int TAKERS_PER_KEY = 3;
    static final int CONTESTED_KEYS = RACERS / (1 + TAKERS_PER_KEY);

    /** The kit of the running test: its hooks, and the store, time and clock it opened for the test. */
    private final IdempotencyStoreTck kit;

    ContractGroup(IdempotencyStoreTck kit) {
        this.kit = kit;
    }

    /** The store under test. */
    IdempotencyStore store() {
        return kit.store;
    }

    /** The store's time, which the tests read and move. */
    StoreTime time() {
        return kit.time;
    }

    /** The engine's (the JVM's) clock the store was given. */
    MutableClock clock() {
        return kit.clock;
    }

    String key(String name) {
        return kit.key(name);
    }

    /** The second instance over the store's backend, or the test is skipped when there is none. */
    IdempotencyStore peerStore() throws Exception {
        return kit.peerStore();
    }

    boolean sweep(IdempotencyStore target) {
        return kit.sweep(target);
    }

    void makeUnreachable(IdempotencyStore target) {
        kit.makeUnreachable(target);
    }

    Duration signalledWithin() {
        return kit.signalledWithin();
    }

    static String payloadOf(String owner) {
        return "payload-" + owner;
    }

    ClaimOutcome claim(String key, String owner) {
        return claimVia(store(), key, owner, NO_WINDOW);
    }

    static ClaimOutcome claimVia(IdempotencyStore target, String key, String owner, Duration window) {
        return target.claim(new ClaimRequest(key, payloadOf(owner), owner, LEASE, window));
    }

    long acquire(String key, String owner) {
        return acquireVia(store(), key, owner, NO_WINDOW);
    }

    static long acquireVia(IdempotencyStore target, String key, String owner, Duration window) {
        ClaimOutcome outcome = claimVia(target, key, owner, window);
        return assertInstanceOf(ClaimOutcome.Acquired.class, outcome, "the claim of " + owner + " must be acquired")
                .fencingToken();
    }

    static IdempotencyRecord existing(ClaimOutcome outcome, String claim) {
        return assertInstanceOf(ClaimOutcome.Existing.class, outcome, claim + " must lose to the existing record")
                .record();
    }

    IdempotencyRecord stored(String key) {
        return store().get(key).orElseGet(() -> fail("no record of " + key));
    }

    void assertRefusedAndChangesNothing(String key, String write, BooleanSupplier attempt) {
        IdempotencyRecord before = stored(key);
        assertFalse(attempt.getAsBoolean(), write + " must be refused");
        assertEquals(before, store().get(key).orElse(null), write + " must change nothing");
    }

    /** Asserts {@code actual} is the store's time during an operation bracketed by {@code before} and {@code after}. */
    void assertStamped(String what, Instant before, Instant actual, Instant after) {
        Duration tolerance = time().tolerance();
        assertNotNull(actual, what);
        assertTrue(!actual.isBefore(before.minus(tolerance)) && !actual.isAfter(after.plus(tolerance)),
                () -> what + " was " + actual + ", not the store's time during the operation: between " + before
                        + " and " + after + (tolerance.isZero() ? "" : " give or take " + tolerance));
    }

    /** How far before an edge a "not yet" step stays: a millisecond on an exact clock, else the tolerance. */
    Duration margin() {
        Duration tolerance = time().tolerance();
        return tolerance.isZero() ? Duration.ofMillis(1) : tolerance;
    }

    void advanceToJustBefore(Instant edge, String what) {
        Instant target = edge.minus(margin());
        Duration by = Duration.between(time().now(), target);
        assertFalse(by.isNegative(), () -> "the store's time " + time().now() + " already passed " + what + " (" + edge
                + ") minus the margin " + margin() + ": StoreTime.tolerance() is too small for this store");
        if (!by.isZero()) {
            time().advance(by);
        }
    }

    /** Moves the store's time to {@code edge}, or past it by the tolerance, unless it is there already. */
    void advancePast(Instant edge) {
        Duration by = Duration.between(time().now(), edge.plus(time().tolerance()));
        if (by.compareTo(Duration.ZERO) > 0) {
            time().advance(by);
        }
    }

    List<Callable<Attempt>> claimers(String key, StoreChoice via, Duration window) {
        List<Callable<Attempt>> claimers = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            claimers.add(claimer(via.storeFor(i), key, "racer-" + i, window));
        }
        return claimers;
    }

    static Callable<Attempt> claimer(IdempotencyStore via, String key, String owner, Duration window) {
        return () -> Attempt.of(owner, claimVia(via, key, owner, window));
    }

    /** Asserts exactly one attempt won and every losing claim saw its token; returns the winner. */
    static Attempt theOneWinner(List<Attempt> attempts, String race) {
        List<Attempt> winners = attempts.stream().filter(Attempt::won).toList();
        assertEquals(1, winners.size(), () -> race + ": " + winners.size() + " won, exactly one must: " + winners);
        Attempt winner = winners.get(0);
        for (Attempt attempt : attempts) {
            if (attempt.isClaim() && !attempt.won()) {
                assertEquals(winner.token(), attempt.token(), () -> race + ": the losing claim of " + attempt.who()
                        + " saw token " + attempt.token() + ", not the winner's " + winner.token());
            }
        }
        return winner;
    }

    void assertTheRecordIsTheWinners(String key, Attempt winner) {
        IdempotencyRecord record = stored(key);
        assertEquals(winner.token(), record.fencingToken(), () -> "the record of " + key + " must carry the token of "
                + winner + ": " + record);
        assertEquals(winner.who(), record.owner(), () -> "the record of " + key + " must be " + winner.who() + "'s");
    }

    /**
     * Per round, {@value #CONTESTED_KEYS} keys whose lease passed, each contested by its owner's {@code write} and
     * {@value #TAKERS_PER_KEY} takeovers through {@code takers}. Both are legal until one happens (a passed lease
     * nobody took over still has the current token), so exactly one must win: the write, after which every claim
     * loses, or one claim, after which the write is refused.
     */
    void raceAnOwnersWriteAgainstTakeovers(String write, OwnersWrite ownersWrite, RecordState afterWrite,
                                                   IdempotencyStore takers) throws Exception {
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                List<String> keys = new ArrayList<>();
                List<Long> tokens = new ArrayList<>();
                Instant lastLease = Instant.MIN;
                for (int k = 0; k < CONTESTED_KEYS; k++) {
                    String key = key(write + "-race-" + round + "-" + k);
                    keys.add(key);
                    tokens.add(acquire(key, "owner"));
                    lastLease = stored(key).leaseUntil();
                }
                advancePast(lastLease);

                List<Callable<Attempt>> contenders = new ArrayList<>();
                for (int k = 0; k < CONTESTED_KEYS; k++) {
                    String key = keys.get(k);
                    long token = tokens.get(k);
                    contenders.add(() -> Attempt.write("owner", ownersWrite.apply(key, token), token));
                    for (int c = 0; c < TAKERS_PER_KEY; c++) {
                        contenders.add(claimer(takers, key, "taker-" + c, NO_WINDOW));
                    }
                }
                List<Attempt> attempts = racers.race(contenders);

                for (int k = 0; k < CONTESTED_KEYS; k++) {
                    String key = keys.get(k);
                    int first = k * (1 + TAKERS_PER_KEY);
                    Attempt winner = theOneWinner(attempts.subList(first, first + 1 + TAKERS_PER_KEY),
                            "the owner's " + write + " against takeovers of " + key + ", round " + round);
                    assertTheRecordIsTheWinners(key, winner);
                    assertEquals(winner.isClaim() ? RecordState.IN_PROGRESS : afterWrite, stored(key).state(),
                            "state after the " + (winner.isClaim() ? "takeover" : write) + " won");
                }
            }
        }
    }

    /** One contender's part in a race: whether it won, and the token it won with or, losing a claim, saw. */
    record Attempt(String who, boolean isClaim, boolean won, long token) {
        static Attempt of(String owner, ClaimOutcome outcome) {
            if (outcome instanceof ClaimOutcome.Acquired acquired) {
                return new Attempt(owner, true, true, acquired.fencingToken());
            }
            return new Attempt(owner, true, false, ((ClaimOutcome.Existing) outcome).record().fencingToken());
        }

        static Attempt write(String owner, boolean applied, long token) {
            return new Attempt(owner, false, applied, token);
        }
    }

    @FunctionalInterface
    interface StoreChoice {
        IdempotencyStore storeFor(int racer);
    }

    @FunctionalInterface
    interface OwnersWrite {
        boolean apply(String key, long token);
    }
}
