package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fencing: a write with a stale token, or with the token of a finished record, is refused and changes nothing; tokens
 * keep increasing across release, deletion and expiry, so a late write of an earlier owner is always refused; and with
 * many threads claiming, releasing and deleting one key against the store's sweep, the tokens in the order the key was
 * held strictly increase.
 */
abstract class FencingContract extends ContractGroup {
    /** The race of holders of one key ends after this many holds, or after {@link #HOLDING_RACE}. */
    private static final int HOLDS = 20_000;
    private static final Duration HOLDING_RACE = Duration.ofSeconds(10);
    /** Outlasts that race even on a server's clock that moves at every reading, so no hold is taken over. */
    private static final Duration HOLDING_LEASE = Duration.ofDays(1);

    FencingContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    void writesWithAStaleTokenAreRefusedAndChangeNothing() {
        String key = key("fenced");
        long stale = acquire(key, "a");
        advancePast(stored(key).leaseUntil());
        long current = acquire(key, "b");

        assertRefusedAndChangesNothing(key, "complete with a stale token",
                () -> store().complete(key, stale, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "fail with a stale token",
                () -> store().fail(key, stale, new byte[] {2}, TTL));
        assertRefusedAndChangesNothing(key, "renew with a stale token", () -> store().renew(key, stale, LEASE));
        assertRefusedAndChangesNothing(key, "release with a stale token", () -> store().release(key, stale));
        assertTrue(store().complete(key, current, new byte[] {3}, TTL), "the current token still completes");
    }

    @Test
    void writesWithTheTokenOfACompletedRecordAreRefusedAndChangeNothing() {
        String key = key("completed");
        long token = acquire(key, "a");
        assertTrue(store().complete(key, token, new byte[] {1}, TTL));

        assertRefusedAndChangesNothing(key, "a second complete",
                () -> store().complete(key, token, new byte[] {2}, TTL));
        assertRefusedAndChangesNothing(key, "fail after completion",
                () -> store().fail(key, token, new byte[] {3}, TTL));
        assertRefusedAndChangesNothing(key, "renew after completion", () -> store().renew(key, token, LEASE));
        assertRefusedAndChangesNothing(key, "release after completion", () -> store().release(key, token));
        assertArrayEquals(new byte[] {1}, stored(key).result());
    }

    @Test
    void writesWithTheTokenOfAFailedRecordAreRefusedAndChangeNothing() {
        String key = key("failed-writes");
        long token = acquire(key, "a");
        assertTrue(store().fail(key, token, new byte[] {9}, TTL));

        assertRefusedAndChangesNothing(key, "renew after failure", () -> store().renew(key, token, LEASE));
        assertRefusedAndChangesNothing(key, "release after failure", () -> store().release(key, token));
        assertRefusedAndChangesNothing(key, "complete after failure",
                () -> store().complete(key, token, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "a second fail", () -> store().fail(key, token, new byte[] {2}, TTL));
        assertEquals(RecordState.FAILED, stored(key).state());
    }

    @Test
    void releaseMakesTheKeyAbsentAndTokensKeepIncreasing() {
        String key = key("release");
        long first = acquire(key, "a");
        assertTrue(store().release(key, first));
        assertEquals(Optional.empty(), store().get(key));

        long second = acquire(key, "b");
        assertTrue(second > first, "tokens increase across release: " + first + " then " + second);
        assertRefusedAndChangesNothing(key, "complete of the released claim",
                () -> store().complete(key, first, new byte[] {1}, TTL));
    }

    @Test
    void tokensKeepIncreasingAfterDeleteSoAStaleOwnerIsRefused() {
        String key = key("deleted");
        long stale = acquire(key, "a");
        store().delete(key);

        long current = acquire(key, "b");
        assertTrue(current > stale, "tokens increase across deletion: " + stale + " then " + current);
        assertRefusedAndChangesNothing(key, "complete of the claim that was deleted",
                () -> store().complete(key, stale, new byte[] {1}, TTL));
    }

    @Test
    void tokensKeepIncreasingAfterExpirySoAStaleOwnerIsRefused() {
        String key = key("expired");
        long stale = acquire(key, "a");
        assertTrue(store().fail(key, stale, new byte[] {1}, FAILURE_TTL));
        advancePast(stored(key).expiresAt());

        long current = acquire(key, "b");
        assertTrue(current > stale, "tokens increase across expiry: " + stale + " then " + current);
        assertRefusedAndChangesNothing(key, "a late complete of the execution whose record expired",
                () -> store().complete(key, stale, new byte[] {2}, TTL));
    }

    @Test
    void deleteRemovesARecordInAnyState() {
        String key = key("delete");
        long token = acquire(key, "a");
        assertTrue(store().complete(key, token, new byte[] {1}, TTL));

        store().delete(key);

        assertEquals(Optional.empty(), store().get(key));
        assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"));
    }

    /**
     * Claimers of one key, each holder logging its token while it holds the key and then releasing or deleting the
     * record, raced against the store's {@linkplain IdempotencyStoreTck#sweep sweep} where it has one. Holds of one
     * key never overlap (their leases outlast the race), so the log is in holding order, and its tokens must strictly
     * increase: a claim that drew its token before it settled that the key is free can acquire with a token below one
     * the key had meanwhile.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void tokensOfOneKeyIncreaseInHoldingOrderAcrossReleasesDeletesAndSweeps() throws Exception {
        String key = key("held-in-turn");
        List<Long> held = new ArrayList<>();
        AtomicInteger holds = new AtomicInteger();
        long deadline = System.nanoTime() + HOLDING_RACE.toNanos();
        BooleanSupplier racing = () -> holds.get() < HOLDS && System.nanoTime() - deadline < 0;
        List<Callable<String>> contenders = new ArrayList<>();
        for (int i = 0; i < RACERS - 1; i++) {
            String owner = "holder-" + i;
            boolean deletes = i % 4 == 0;
            contenders.add(() -> {
                while (racing.getAsBoolean()) {
                    ClaimRequest request = new ClaimRequest(key, payloadOf(owner), owner, HOLDING_LEASE, NO_WINDOW);
                    if (store().claim(request) instanceof ClaimOutcome.Acquired acquired) {
                        long token = acquired.fencingToken();
                        synchronized (held) {
                            held.add(token); // while holding: the log's order is the holding order
                        }
                        holds.incrementAndGet();
                        if (deletes) {
                            store().delete(key);
                        } else if (!store().release(key, token)) {
                            return owner + " could not release its own claim " + token;
                        }
                    }
                }
                return null;
            });
        }
        contenders.add(() -> {
            while (racing.getAsBoolean() && sweep(store())) {
                Thread.onSpinWait();
            }
            return null;
        });
        try (Racers racers = new Racers(RACERS)) {
            for (String trouble : racers.race(contenders)) {
                assertNull(trouble);
            }
        }

        assertTrue(held.size() > 1, "the race must hold the key more than once: " + held.size());
        int backwards = 0;
        String first = null;
        for (int i = 1; i < held.size(); i++) {
            if (held.get(i) <= held.get(i - 1)) {
                backwards++;
                if (first == null) {
                    first = "hold " + i + " had token " + held.get(i) + " after " + held.get(i - 1);
                }
            }
        }
        assertEquals(0, backwards, backwards + " of " + held.size() + " holds of one key had a token not above the"
                + " one before (the first: " + first + ")");
    }
}
