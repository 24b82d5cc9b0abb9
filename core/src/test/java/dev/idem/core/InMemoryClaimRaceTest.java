package dev.idem.core;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A claim racing the removal of the record it found. A claim reads the key's entry without a lock and decides under
 * the entry's lock; in between, a takeover by another claim, the sweep of an expired record or a delete may remove
 * the entry. A claim that then decided on the removed entry would take over a record the store no longer keeps: an
 * answer of acquired for a claim that is not stored, beside the claim that is (two winners).
 *
 * <p>Each test opens that gap for certain: it holds the entry's lock (the store's test hook names the entry), starts
 * the claim, waits until the claim is blocked on that lock, and removes the entry on its own thread (the lock is
 * reentrant) before letting the claim go on.
 */
class InMemoryClaimRaceTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final long BLOCKED_WITHIN_SECONDS = 10;

    private final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock);

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClaimOfARecordTakenOverMeanwhileLosesToTheTakeover() throws Exception {
        String key = "idem:race:taken-over";
        expiredRecordOf(key);
        long[] takeover = new long[1];

        ClaimOutcome late = claimStoppedAtTheEntryWhile(key,
                () -> takeover[0] = acquire(key, "taker"));

        ClaimOutcome.Existing lost = assertInstanceOf(ClaimOutcome.Existing.class, late,
                "a claim that found the record the takeover replaced must lose to the takeover, not win beside it");
        assertEquals(takeover[0], lost.record().fencingToken());
        assertEquals(takeover[0], store.get(key).orElseThrow().fencingToken(), "the takeover's claim stays stored");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClaimOfARecordSweptMeanwhileClaimsTheKeyAfreshAndIsStored() throws Exception {
        String key = "idem:race:swept";
        expiredRecordOf(key);

        ClaimOutcome late = claimStoppedAtTheEntryWhile(key, () -> {
            acquire("idem:race:another-key", "writer"); // a write sweeps the records whose sweep time came
            assertNull(store.entryOf(key), "the write must have swept the expired record");
        });

        assertAcquiredAndStored(key, late);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClaimOfAnAbandonedClaimDeletedMeanwhileClaimsTheKeyAfreshAndIsStored() throws Exception {
        String key = "idem:race:deleted";
        acquire(key, "crashed");
        clock.advance(LEASE.plusSeconds(1)); // the lease passed: the claim is abandoned, and claimable

        ClaimOutcome late = claimStoppedAtTheEntryWhile(key, () -> store.delete(key));

        assertAcquiredAndStored(key, late);
    }

    private void assertAcquiredAndStored(String key, ClaimOutcome late) {
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, late,
                "the key was absent once the record was removed").fencingToken();
        assertEquals(token, store.get(key).map(r -> r.fencingToken()).orElse(-1L),
                "an acquired claim must be the one the store keeps, not a takeover of a record it removed");
        assertTrue(store.complete(key, token, new byte[] {1}, TTL), "the acquired claim's owner can complete it");
    }

    /** A completed record of {@code key} whose expiry and sweep time passed. */
    private void expiredRecordOf(String key) {
        assertTrue(store.complete(key, acquire(key, "first"), new byte[] {1}, TTL));
        clock.advance(TTL.multipliedBy(2)); // past the expiry and the sweep time, whatever the jitter
    }

    /**
     * Starts a claim of {@code key} while holding its entry's lock, waits until the claim is blocked on that lock,
     * runs {@code removal} on this thread, then lets the claim go on; returns what it answered.
     */
    private ClaimOutcome claimStoppedAtTheEntryWhile(String key, Runnable removal) throws Exception {
        Object entry = store.entryOf(key);
        assertNotNull(entry, "the store keeps an entry for " + key);
        FutureTask<ClaimOutcome> claim = new FutureTask<>(() -> store.claim(request(key, "late")));
        Thread claimer = new Thread(claim, "late-claimer");
        claimer.setDaemon(true);
        synchronized (entry) {
            claimer.start();
            awaitBlockedOn(claimer, entry);
            removal.run();
        }
        return claim.get(10, TimeUnit.SECONDS);
    }

    /** Waits (bounded) until {@code thread} is blocked entering the monitor of {@code lock}. */
    private static void awaitBlockedOn(Thread thread, Object lock) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BLOCKED_WITHIN_SECONDS);
        while (System.nanoTime() - deadline < 0) {
            ThreadInfo info = threads.getThreadInfo(thread.getId());
            LockInfo waitingFor = info == null ? null : info.getLockInfo();
            if (info != null && info.getThreadState() == Thread.State.BLOCKED && waitingFor != null
                    && waitingFor.getIdentityHashCode() == System.identityHashCode(lock)) {
                return;
            }
            if (!thread.isAlive()) {
                fail("the claim finished without waiting for the entry's lock");
            }
            Thread.yield();
        }
        fail("the claim was not blocked on the entry's lock within " + BLOCKED_WITHIN_SECONDS + "s");
    }

    private long acquire(String key, String owner) {
        return assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key, owner))).fencingToken();
    }

    private static ClaimRequest request(String key, String owner) {
        return new ClaimRequest(key, "hash-" + owner, owner, LEASE, Duration.ZERO);
    }
}
