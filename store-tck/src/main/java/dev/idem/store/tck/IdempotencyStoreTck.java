package dev.idem.store.tck;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.store.TtlJitter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compatibility kit every {@link IdempotencyStore} passes: extend it, return a fresh store from
 * {@link #createStore(MutableClock)}, and the suite checks SEMANTICS.md section 4 against it.
 *
 * <p>The store must read "now" from the given clock, so that leases and expiry are tested by moving the clock and
 * never by sleeping. Each test uses keys of its own (a random prefix), so stores backed by a shared server need no
 * cleaning between tests.
 */
public abstract class IdempotencyStoreTck {
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration TTL = Duration.ofMinutes(30);
    private static final Duration NO_WINDOW = Duration.ZERO;

    protected MutableClock clock;
    protected IdempotencyStore store;
    private String prefix;

    /** A new store reading time from {@code clock}. */
    protected abstract IdempotencyStore createStore(MutableClock clock) throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
        store = createStore(clock);
        prefix = "idem:tck:" + UUID.randomUUID() + ":";
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    protected String key(String name) {
        return prefix + name;
    }

    private ClaimOutcome claim(String key, String owner) {
        return store.claim(new ClaimRequest(key, "payload-" + owner, owner, LEASE, NO_WINDOW));
    }

    private long acquire(String key, String owner) {
        ClaimOutcome outcome = claim(key, owner);
        return assertInstanceOf(ClaimOutcome.Acquired.class, outcome, "claim of an absent key").fencingToken();
    }

    @Test
    void claimOfAnAbsentKeyIsAcquiredAndStoredInProgress() {
        String key = key("fresh");
        long token = acquire(key, "a");

        IdempotencyRecord record = store.get(key).orElseThrow();
        assertEquals(RecordState.IN_PROGRESS, record.state());
        assertEquals(token, record.fencingToken());
        assertEquals("payload-a", record.payloadHash());
        assertEquals("a", record.owner());
        assertEquals(clock.instant(), record.startedAt());
        assertEquals(clock.instant().plus(LEASE), record.leaseUntil());
    }

    @Test
    void losingClaimReturnsTheExistingRecordInTheSameCall() {
        String key = key("contended");
        long token = acquire(key, "a");

        ClaimOutcome second = claim(key, "b");

        IdempotencyRecord existing = assertInstanceOf(ClaimOutcome.Existing.class, second).record();
        assertEquals(token, existing.fencingToken());
        assertEquals("a", existing.owner());
        assertEquals("payload-a", existing.payloadHash());
    }

    @Test
    void exactlyOneOfManyConcurrentClaimersWins() throws Exception {
        int threads = 32;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 20; round++) {
                String key = key("race-" + round);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<ClaimOutcome>> results = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    String owner = "owner-" + i;
                    results.add(pool.submit(() -> {
                        start.await();
                        return claim(key, owner);
                    }));
                }
                start.countDown();
                int winners = 0;
                Set<Long> tokensSeen = new HashSet<>();
                for (Future<ClaimOutcome> result : results) {
                    ClaimOutcome outcome = result.get(30, TimeUnit.SECONDS);
                    if (outcome instanceof ClaimOutcome.Acquired acquired) {
                        winners++;
                        tokensSeen.add(acquired.fencingToken());
                    } else {
                        tokensSeen.add(((ClaimOutcome.Existing) outcome).record().fencingToken());
                    }
                }
                assertEquals(1, winners, "winners in round " + round);
                assertEquals(1, tokensSeen.size(), "every loser saw the winner's token in round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void claimIsRefusedWhileTheLeaseHolds() {
        String key = key("held");
        acquire(key, "a");
        clock.advance(LEASE.minusMillis(1));

        assertInstanceOf(ClaimOutcome.Existing.class, claim(key, "b"));
    }

    @Test
    void takeoverAfterTheLeasePassesGetsALargerTokenAndReportsTheReplacedRecord() {
        String key = key("takeover");
        long first = acquire(key, "a");
        Instant started = clock.instant();
        clock.advance(LEASE);

        ClaimOutcome outcome = claim(key, "b");

        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, outcome);
        assertTrue(acquired.fencingToken() > first, "token must increase on takeover");
        assertNotNull(acquired.replaced(), "the taken-over record");
        assertEquals(first, acquired.replaced().fencingToken());
        IdempotencyRecord now = store.get(key).orElseThrow();
        assertEquals("b", now.owner());
        assertEquals(started, now.startedAt(), "a takeover continues the same execution's window");
    }

    @Test
    void renewExtendsTheLeaseFromNow() {
        String key = key("renew");
        long token = acquire(key, "a");
        clock.advance(Duration.ofSeconds(20));

        assertTrue(store.renew(key, token, LEASE));
        clock.advance(Duration.ofSeconds(20));

        assertInstanceOf(ClaimOutcome.Existing.class, claim(key, "b"), "renewed lease still holds at 40s");
        assertEquals(clock.instant().minusSeconds(20).plus(LEASE), store.get(key).orElseThrow().leaseUntil());
    }

    @Test
    void writesWithAStaleTokenAreRefusedAndChangeNothing() {
        String key = key("fenced");
        long stale = acquire(key, "a");
        clock.advance(LEASE);
        long current = acquire(key, "b");
        IdempotencyRecord before = store.get(key).orElseThrow();

        assertFalse(store.complete(key, stale, new byte[] {1}, TTL), "complete with stale token");
        assertFalse(store.fail(key, stale, new byte[] {2}, TTL), "fail with stale token");
        assertFalse(store.renew(key, stale, LEASE), "renew with stale token");
        assertFalse(store.release(key, stale), "release with stale token");

        assertEquals(before, store.get(key).orElseThrow());
        assertTrue(store.complete(key, current, new byte[] {3}, TTL), "the current token still completes");
    }

    @Test
    void writesToAFinishedRecordAreRefused() {
        String key = key("finished");
        long token = acquire(key, "a");
        assertTrue(store.complete(key, token, new byte[] {1}, TTL));

        assertFalse(store.complete(key, token, new byte[] {2}, TTL), "second complete");
        assertFalse(store.renew(key, token, LEASE), "renew after completion");
        assertFalse(store.fail(key, token, new byte[] {3}, TTL), "fail after completion");
        assertArrayEquals(new byte[] {1}, store.get(key).orElseThrow().result());
    }

    @Test
    void completedResultsRoundTripByteExact() {
        Random random = new Random(42);
        for (int size : new int[] {0, 1, 255, 4096, 1 << 20}) {
            String key = key("bytes-" + size);
            byte[] result = new byte[size];
            random.nextBytes(result);
            if (size > 2) {
                result[0] = 0;
                result[1] = (byte) 0xFF;
            }
            long token = acquire(key, "a");
            assertTrue(store.complete(key, token, result.clone(), TTL));

            IdempotencyRecord record = store.get(key).orElseThrow();
            assertEquals(RecordState.COMPLETED, record.state());
            assertArrayEquals(result, record.result(), "result of " + size + " bytes");
            assertEquals(clock.instant(), record.completedAt());
            ClaimOutcome again = claim(key, "b");
            assertArrayEquals(result, assertInstanceOf(ClaimOutcome.Existing.class, again).record().result());
        }
    }

    @Test
    void expiryIsDecidedAtReadTime() {
        String key = key("expiry");
        long token = acquire(key, "a");
        assertTrue(store.complete(key, token, new byte[] {7}, TTL));
        Instant expiresAt = store.get(key).orElseThrow().expiresAt();

        clock.set(expiresAt.minusMillis(1));
        assertTrue(store.get(key).isPresent(), "one millisecond before expiry");
        assertInstanceOf(ClaimOutcome.Existing.class, claim(key, "b"));

        clock.set(expiresAt);
        assertEquals(Optional.empty(), store.get(key), "at expiry");
        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"));
        assertNull(acquired.replaced(), "an expired record is absent, not replaced");
    }

    @Test
    void expiryCarriesJitterWithinTenPercentAndNeverShorter() {
        Set<Instant> distinct = new HashSet<>();
        Duration ttl = Duration.ofSeconds(100);
        for (int i = 0; i < 60; i++) {
            String key = key("jitter-" + i);
            long token = acquire(key, "a");
            assertTrue(store.complete(key, token, new byte[0], ttl));
            IdempotencyRecord record = store.get(key).orElseThrow();
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
        ClaimOutcome first = store.claim(new ClaimRequest(key, "p", "a", LEASE, window));
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, first).fencingToken();
        clock.advance(Duration.ofSeconds(10));
        assertTrue(store.complete(key, token, new byte[] {1}, TTL));

        clock.advance(Duration.ofMinutes(4));
        ClaimOutcome within = store.claim(new ClaimRequest(key, "p", "b", LEASE, window));
        assertEquals(RecordState.COMPLETED, assertInstanceOf(ClaimOutcome.Existing.class, within).record().state());

        clock.advance(Duration.ofSeconds(50)); // 5m after the start of the execution, long before the ttl
        ClaimOutcome after = store.claim(new ClaimRequest(key, "p", "b", LEASE, window));
        ClaimOutcome.Acquired superseding = assertInstanceOf(ClaimOutcome.Acquired.class, after);
        assertTrue(superseding.fencingToken() > token);
        assertNotNull(superseding.replaced(), "the superseded record");
        assertEquals(RecordState.COMPLETED, superseding.replaced().state());
        assertEquals(clock.instant(), store.get(key).orElseThrow().startedAt(), "a supersede starts a new window");
    }

    @Test
    void withoutAWindowAFinishedRecordHoldsUntilItExpires() {
        String key = key("no-window");
        long token = acquire(key, "a");
        assertTrue(store.complete(key, token, new byte[] {1}, TTL));
        clock.advance(TTL.minusSeconds(1));

        assertInstanceOf(ClaimOutcome.Existing.class, claim(key, "b"));
    }

    @Test
    void aRememberedFailureIsReturnedUntilItsTtlPasses() {
        String key = key("failed");
        long token = acquire(key, "a");
        Duration failureTtl = Duration.ofSeconds(10);
        assertTrue(store.fail(key, token, new byte[] {9, 9}, failureTtl));

        IdempotencyRecord failed = assertInstanceOf(ClaimOutcome.Existing.class, claim(key, "b")).record();
        assertEquals(RecordState.FAILED, failed.state());
        assertArrayEquals(new byte[] {9, 9}, failed.result());

        clock.advance(Duration.ofSeconds(11));
        assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"));
    }

    @Test
    void releaseMakesTheKeyAbsentAndTokensKeepIncreasing() {
        String key = key("release");
        long first = acquire(key, "a");
        assertTrue(store.release(key, first));
        assertEquals(Optional.empty(), store.get(key));

        long second = acquire(key, "b");
        assertTrue(second > first, "tokens increase across release: " + first + " then " + second);
        assertFalse(store.complete(key, first, new byte[] {1}, TTL), "the released claim cannot complete");
    }

    @Test
    void deleteRemovesARecordInAnyState() {
        String key = key("delete");
        long token = acquire(key, "a");
        assertTrue(store.complete(key, token, new byte[] {1}, TTL));

        store.delete(key);

        assertEquals(Optional.empty(), store.get(key));
        assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"));
    }

    @Test
    void keysAreIndependent() {
        long a = acquire(key("one"), "a");
        long b = acquire(key("two"), "b");
        assertTrue(store.complete(key("one"), a, new byte[] {1}, TTL));

        assertEquals(RecordState.IN_PROGRESS, store.get(key("two")).orElseThrow().state());
        assertTrue(store.release(key("two"), b));
        assertEquals(RecordState.COMPLETED, store.get(key("one")).orElseThrow().state());
    }

    @Test
    void anUnreachableStoreReportsIdempotencyStoreExceptionFromEveryOperation() {
        String key = key("outage");
        long token = acquire(key, "a");
        makeUnreachable(store);

        List<Executable> operations = List.of(
                () -> claim(key, "b"),
                () -> store.complete(key, token, new byte[] {1}, TTL),
                () -> store.fail(key, token, new byte[] {1}, TTL),
                () -> store.release(key, token),
                () -> store.renew(key, token, LEASE),
                () -> store.get(key),
                () -> store.delete(key));
        for (Executable operation : operations) {
            assertThrows(IdempotencyStoreException.class, operation);
        }
    }

    /**
     * Cuts the store off from its backend. The default closes it, which every store must answer with
     * {@link IdempotencyStoreException}; server-backed stores may override this to stop the server or drop the
     * connection instead.
     */
    protected void makeUnreachable(IdempotencyStore target) {
        target.close();
    }
}
