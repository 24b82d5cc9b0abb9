package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The claim: an absent key is claimed and stamped with the store's time; a losing claim returns the record exactly as
 * stored; a lease holds to the millisecond and a takeover after it gets a larger token, records the new owner, payload
 * hash and lease, keeps the execution's start and reports what it replaced; a renewal extends the lease from now; a
 * window never ends an execution in progress.
 */
abstract class ClaimContract extends ContractGroup {
    ClaimContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    void claimOfAnAbsentKeyIsAcquiredAndStoredInProgress() {
        String key = key("fresh");
        Instant before = time().now();
        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "a"),
                "claim of an absent key");
        Instant after = time().now();

        assertNull(acquired.replaced(), "a claim of an absent key replaces nothing");
        IdempotencyRecord record = stored(key);
        assertEquals(key, record.key());
        assertEquals(RecordState.IN_PROGRESS, record.state());
        assertEquals(acquired.fencingToken(), record.fencingToken());
        assertEquals(payloadOf("a"), record.payloadHash());
        assertEquals("a", record.owner());
        assertStamped("startedAt of a fresh claim", before, record.startedAt(), after);
        assertStamped("leaseUntil of a fresh claim (now plus the lease)", before.plus(LEASE), record.leaseUntil(),
                after.plus(LEASE));
        assertNull(record.result(), "a claim in progress has no result");
    }

    @Test
    void aLosingClaimReturnsTheExistingRecordExactlyAsStored() {
        String key = key("contended");
        long token = acquire(key, "a");
        time().advance(Duration.ofSeconds(5)); // a store stamping the loser's own time into the answer shows it now

        IdempotencyRecord running = stored(key);
        assertEquals(running, existing(claim(key, "b"), "a claim while the lease holds"),
                "a claim losing to an execution in progress must return its record as stored");

        assertTrue(store().complete(key, token, new byte[] {4, 2}, TTL));
        time().advance(Duration.ofSeconds(5));
        IdempotencyRecord completed = stored(key);
        assertEquals(completed, existing(claim(key, "b"), "a claim of a completed key"),
                "a claim losing to a completed execution must return its record as stored");
    }

    @Test
    void claimIsRefusedWhileTheLeaseHolds() {
        String key = key("held");
        long token = acquire(key, "a");
        advanceToJustBefore(stored(key).leaseUntil(), "the end of the lease");

        IdempotencyRecord held = existing(claim(key, "b"), "a claim just before the lease ends must lose");
        assertEquals(token, held.fencingToken());
    }

    @Test
    void takeoverAfterTheLeasePassesGetsALargerTokenAndReportsTheReplacedRecord() {
        String key = key("takeover");
        long first = acquire(key, "a");
        IdempotencyRecord abandoned = stored(key);
        advancePast(abandoned.leaseUntil());

        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"),
                "a claim once the lease passed takes over");
        assertTrue(acquired.fencingToken() > first,
                "the token must increase on takeover: " + first + " then " + acquired.fencingToken());
        assertEquals(abandoned, acquired.replaced(), "the takeover reports the record it replaced, as it was stored");
    }

    @Test
    void aTakeoverRecordsTheNewOwnerPayloadHashAndLeaseButKeepsTheStart() {
        String key = key("takeover-record");
        acquire(key, "a");
        IdempotencyRecord abandoned = stored(key);
        advancePast(abandoned.leaseUntil());

        Instant before = time().now();
        long token = acquire(key, "b");
        Instant after = time().now();

        IdempotencyRecord taken = stored(key);
        assertEquals(token, taken.fencingToken(), "the record carries the new claim's token");
        assertEquals("b", taken.owner(), "the owner is the one who took over");
        assertEquals(payloadOf("b"), taken.payloadHash(), "the payload hash is the one the new owner runs with");
        assertStamped("leaseUntil after a takeover (now plus the lease)", before.plus(LEASE), taken.leaseUntil(),
                after.plus(LEASE));
        assertEquals(abandoned.startedAt(), taken.startedAt(), "a takeover continues the same execution's window");
        assertEquals(taken, existing(claim(key, "c"), "a claim after the takeover"),
                "a later claim sees the new owner's record");
    }

    @Test
    void aWindowShorterThanTheLeaseNeverSupersedesAnExecutionInProgress() {
        String key = key("short-window");
        Duration window = Duration.ofSeconds(5);
        long token = acquireVia(store(), key, "a", window);
        advanceToJustBefore(stored(key).leaseUntil(), "the end of the lease"); // long past start + window

        IdempotencyRecord running = existing(claimVia(store(), key, "b", window),
                "a claim after the window but within the lease must lose: a window applies to finished records only");
        assertEquals(token, running.fencingToken());
        assertEquals(RecordState.IN_PROGRESS, running.state());
    }

    @Test
    void renewExtendsTheLeaseFromNow() {
        String key = key("renew");
        long token = acquire(key, "a");
        IdempotencyRecord claimed = stored(key);
        time().advance(Duration.ofSeconds(20));

        Instant before = time().now();
        assertTrue(store().renew(key, token, LEASE));
        Instant after = time().now();
        assertStamped("leaseUntil after renew (now plus the lease)", before.plus(LEASE), stored(key).leaseUntil(),
                after.plus(LEASE));

        advancePast(claimed.leaseUntil());
        existing(claim(key, "b"), "the renewed lease must still hold after the first one would have passed");
    }
}
