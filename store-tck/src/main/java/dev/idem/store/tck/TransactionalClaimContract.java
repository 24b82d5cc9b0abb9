package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Transactional claims, for a store that offers {@link dev.idem.store.IdempotencyStore#transactionalClaims}; each test
 * is skipped, saying so, for one that does not: a takeover or a supersede inside a transaction records the new owner's
 * payload hash, as a plain one does, and commits its completion with it; one that rolls back leaves the record as it
 * was.
 */
abstract class TransactionalClaimContract extends ContractGroup {
    TransactionalClaimContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    void aTransactionalTakeoverRecordsTheNewOwnerPayloadHashAndLease() {
        TransactionalClaims claims = transactionalClaimsOrSkip();
        String key = key("tx-takeover-record");
        acquire(key, "a");
        IdempotencyRecord abandoned = stored(key);
        advancePast(abandoned.leaseUntil());

        Instant before = time().now();
        long token = committedInTransaction(claims, key, "b", NO_WINDOW, abandoned);
        Instant after = time().now();

        IdempotencyRecord taken = stored(key);
        assertEquals(RecordState.COMPLETED, taken.state(), "the takeover's completion was committed with it");
        assertEquals(token, taken.fencingToken(), "the record carries the transactional claim's token");
        assertEquals("b", taken.owner(), "the owner is the one who took over");
        assertEquals(payloadOf("b"), taken.payloadHash(), "the payload hash is the one the new owner ran with, as a"
                + " plain takeover records it");
        assertStamped("completedAt after a transactional takeover", before, taken.completedAt(), after);
    }

    @Test
    void aTransactionalSupersedeRecordsTheNewOwnerPayloadHash() {
        TransactionalClaims claims = transactionalClaimsOrSkip();
        String key = key("tx-supersede-record");
        Duration window = Duration.ofMinutes(5);
        long first = acquireVia(store(), key, "a", window);
        assertTrue(store().complete(key, first, new byte[] {1}, TTL));
        IdempotencyRecord finished = stored(key);
        advancePast(finished.startedAt().plus(window));

        Instant before = time().now();
        long token = committedInTransaction(claims, key, "b", window, finished);
        Instant after = time().now();

        IdempotencyRecord superseding = stored(key);
        assertEquals(token, superseding.fencingToken());
        assertEquals("b", superseding.owner());
        assertEquals(payloadOf("b"), superseding.payloadHash(), "the superseding owner's payload hash");
        assertStamped("startedAt after a transactional supersede (a new window)", before, superseding.startedAt(),
                after);
    }

    @Test
    void aTransactionalTakeoverThatRollsBackLeavesTheRecordAsItWas() {
        TransactionalClaims claims = transactionalClaimsOrSkip();
        String key = key("tx-takeover-rollback");
        acquire(key, "a");
        IdempotencyRecord abandoned = stored(key);
        advancePast(abandoned.leaseUntil());

        try (TransactionalClaims.Transaction tx = claims.joinOrBegin()) {
            ClaimOutcome outcome = tx.claim(new ClaimRequest(key, payloadOf("b"), "b", LEASE, NO_WINDOW),
                    Duration.ofSeconds(10)).orElseGet(() -> fail("the transactional claim of " + key + " timed out"));
            assertInstanceOf(ClaimOutcome.Acquired.class, outcome, "the transactional claim takes over");
        } // closed without a commit: rolled back
        assertEquals(abandoned, stored(key), "a rolled-back takeover leaves the abandoned record as it was");
    }

    /** The store's transactional claims, or the test is skipped for a store (or database) that offers none. */
    private TransactionalClaims transactionalClaimsOrSkip() {
        try {
            return store().transactionalClaims();
        } catch (UnsupportedOperationException e) {
            assumeTrue(false, "no transactional claims: " + e.getMessage());
            throw e;
        }
    }

    /**
     * Claims {@code key} for {@code owner} in a transaction of {@code claims}, over {@code replaced}; completes and
     * commits it; returns the claim's token.
     */
    private long committedInTransaction(TransactionalClaims claims, String key, String owner, Duration window,
                                        IdempotencyRecord replaced) {
        try (TransactionalClaims.Transaction tx = claims.joinOrBegin()) {
            ClaimOutcome outcome = tx.claim(new ClaimRequest(key, payloadOf(owner), owner, LEASE, window),
                    Duration.ofSeconds(10)).orElseGet(() -> fail("the transactional claim of " + key + " timed out"));
            ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, outcome,
                    "the transactional claim of " + owner + " must be acquired");
            assertTrue(acquired.fencingToken() > replaced.fencingToken(), "a larger token than the replaced one");
            assertEquals(replaced, acquired.replaced(), "the claim reports the record it replaced");
            assertTrue(tx.complete(key, acquired.fencingToken(), new byte[] {2}, TTL), "completed in the transaction");
            tx.commit();
            return acquired.fencingToken();
        }
    }
}
