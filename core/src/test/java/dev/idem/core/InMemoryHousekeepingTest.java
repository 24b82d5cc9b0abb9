package dev.idem.core;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.KeyWatch;
import dev.idem.store.RecordState;
import dev.idem.testsupport.CapturedLog;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.stream.IntStream;

import static dev.idem.core.InMemoryBoundTest.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-memory store's own arithmetic and housekeeping, each to the millisecond, where the TCK and
 * {@link InMemoryBoundTest} only look at the outcome: leases, windows and ttls and their rounding, the ttl jitter,
 * saturation of durations near {@code Long.MAX_VALUE} ms, the sweep queues (sweep times, compaction, the 64-queue
 * limit), the scan for abandoned claims, exact eviction counts and event details, and watches. Written against the
 * mutants PIT left alive in the store (docs/testing.md). On a clock the test moves; nothing sleeps.
 */
class InMemoryHousekeepingTest {
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration HOUR = Duration.ofHours(1);
    private static final String HASH = "a".repeat(64);
    /** The store's estimate of a record of {@link InMemoryBoundTest#key} and {@link #HASH}: 248 + 49 + 64. */
    private static final long IN_PROGRESS_BYTES = 361;
    /** The same with a 100-byte result. */
    private static final long COMPLETED_BYTES = 461;

    private final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
    private final Instant t0 = clock.instant();
    private final List<IdempotencyEvent> evicted = new CopyOnWriteArrayList<>();

    private InMemoryIdempotencyStore store(long maximumSize, long maximumBytes) {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, maximumSize, maximumBytes);
        store.addEvictionListener(evicted::add);
        return store;
    }

    private InMemoryIdempotencyStore store(long maximumSize) {
        return store(maximumSize, Long.MAX_VALUE);
    }

    private static ClaimOutcome claim(InMemoryIdempotencyStore store, String key, Duration lease, Duration window) {
        return store.claim(new ClaimRequest(key, HASH, "test", lease, window));
    }

    private static long acquire(InMemoryIdempotencyStore store, String key, Duration lease, Duration window) {
        return assertInstanceOf(ClaimOutcome.Acquired.class, claim(store, key, lease, window)).fencingToken();
    }

    private static long acquire(InMemoryIdempotencyStore store, String key) {
        return acquire(store, key, LEASE, Duration.ZERO);
    }

    private static void completed(InMemoryIdempotencyStore store, String key, Duration ttl) {
        assertTrue(store.complete(key, acquire(store, key), new byte[100], ttl), key);
    }

    private void at(Instant instant) {
        clock.set(instant);
    }

    private Instant t(long millisAfterStart) {
        return t0.plusMillis(millisAfterStart);
    }

    private List<String> evictedKeys() {
        return evicted.stream().map(IdempotencyEvent::key).toList();
    }

    private static List<String> keys(int from, int to) {
        return IntStream.range(from, to).mapToObj(InMemoryBoundTest::key).toList();
    }

    // ---------------------------------------------------------------- writes, bounds, rounding

    @Test
    void writesToAbsentKeysOrWithAStaleTokenAreRefusedAndLinkNothing() {
        InMemoryIdempotencyStore store = store(10);
        assertFalse(store.complete(key(0), 1, new byte[1], HOUR));
        assertFalse(store.fail(key(0), 1, new byte[1], HOUR));
        assertFalse(store.release(key(0), 1));
        assertFalse(store.renew(key(0), 1, LEASE));
        assertEquals(0, store.estimatedSize());
        assertEquals(0, store.estimatedBytes());

        long token = acquire(store, key(1));
        assertFalse(store.complete(key(1), token + 1, new byte[1], HOUR));
        assertFalse(store.fail(key(1), token + 1, new byte[1], HOUR));
        assertFalse(store.release(key(1), token + 1));
        assertFalse(store.renew(key(1), token + 1, HOUR));
        assertEquals(RecordState.IN_PROGRESS, store.get(key(1)).orElseThrow().state());
        assertEquals(t0.plus(LEASE), store.get(key(1)).orElseThrow().leaseUntil());
        assertEquals(IN_PROGRESS_BYTES, store.estimatedBytes());
        assertEquals(0, store.linkedInSweepQueues());

        assertTrue(store.release(key(1), token));
        assertFalse(store.complete(key(1), token, new byte[1], HOUR), "a released claim is no longer current");
        assertEquals(0, store.estimatedBytes());
        assertEquals(0, store.linkedInSweepQueues(), "a released claim was never linked into a sweep queue");
    }

    @Test
    void boundsOfOneAreAcceptedAndAByteBoundOfOneEvictsEachRecordAsItFinishes() {
        InMemoryIdempotencyStore store = store(1, 1);
        long token = acquire(store, key(0), Duration.ofDays(2), Duration.ZERO);
        assertEquals(1, store.estimatedSize(), "a claim in progress is never evicted");
        clock.advance(Duration.ofSeconds(90_061));

        assertTrue(store.complete(key(0), token, new byte[100], Duration.ofMillis(9)));

        assertEquals(0, store.estimatedSize());
        assertEquals(0, store.estimatedBytes());
        assertEquals(List.of(key(0)), evictedKeys());
        assertEquals("COMPLETED record evicted at age 1d1h1m1s (0s before it would have expired) because the store"
                + " held about 461 bytes in 1 records, over idem.memory.maximumBytes = 1; a duplicate of this key"
                + " may run again", evicted.get(0).detail());
    }

    @Test
    void eventDetailsGiveAgesInDaysHoursMinutesAndSecondsLeavingOutZeroParts() {
        InMemoryIdempotencyStore store = store(1_000, 1);
        long[] ages = {0, 1, 59, 60, 61, 3_599, 3_600, 3_660, 86_399, 86_400, 86_401, 90_061, 200 * 86_400 + 7};
        List<String> expected = List.of("0s", "1s", "59s", "1m", "1m1s", "59m59s", "1h", "1h1m", "23h59m59s", "1d",
                "1d1s", "1d1h1m1s", "200d7s");
        for (int i = 0; i < ages.length; i++) {
            at(t0);
            long token = acquire(store, key(i), Duration.ofDays(365), Duration.ZERO);
            at(t0.plusSeconds(ages[i]).plusMillis(999)); // the age is cut to the second
            assertTrue(store.complete(key(i), token, new byte[100], Duration.ofMillis(9)));
        }
        assertEquals(expected, evicted.stream()
                .map(e -> e.detail().substring("COMPLETED record evicted at age ".length(), e.detail().indexOf(" (")))
                .toList());
    }

    @Test
    void leasesAreExactToTheMillisecondAndFractionsRoundUp() {
        InMemoryIdempotencyStore store = store(10);
        acquire(store, key(0), Duration.ofSeconds(30), Duration.ZERO);
        acquire(store, key(1), Duration.ofSeconds(30).plusNanos(1), Duration.ZERO);
        assertEquals(t(30_000), store.get(key(0)).orElseThrow().leaseUntil());
        assertEquals(t(30_001), store.get(key(1)).orElseThrow().leaseUntil());

        at(t(29_999));
        assertInstanceOf(ClaimOutcome.Existing.class, claim(store, key(0), LEASE, Duration.ZERO));
        at(t(30_000));
        assertInstanceOf(ClaimOutcome.Existing.class, claim(store, key(1), LEASE, Duration.ZERO));
        ClaimOutcome.Acquired takeover = assertInstanceOf(ClaimOutcome.Acquired.class,
                claim(store, key(0), LEASE, Duration.ZERO));
        assertEquals(RecordState.IN_PROGRESS, takeover.replaced().state());
        assertEquals(t(30_000), takeover.storeTime());
        at(t(30_001));
        long token = acquire(store, key(1));

        at(t(40_000));
        assertTrue(store.renew(key(1), token, Duration.ofMillis(5).plusNanos(999_999)));
        assertEquals(t(40_006), store.get(key(1)).orElseThrow().leaseUntil());
        assertTrue(store.renew(key(1), token, Duration.ofMillis(5)));
        assertEquals(t(40_005), store.get(key(1)).orElseThrow().leaseUntil());
    }

    @Test
    void windowsAreExactToTheMillisecondAndFractionsRoundUp() {
        InMemoryIdempotencyStore store = store(10);
        assertTrue(store.complete(key(0), acquire(store, key(0), LEASE, Duration.ofMinutes(1)), new byte[1], HOUR));
        assertTrue(store.complete(key(1), acquire(store, key(1), LEASE, Duration.ofMinutes(1).plusNanos(1)),
                new byte[1], HOUR));

        at(t(59_999));
        assertInstanceOf(ClaimOutcome.Existing.class, claim(store, key(0), LEASE, Duration.ofMinutes(1)));
        at(t(60_000));
        assertInstanceOf(ClaimOutcome.Existing.class,
                claim(store, key(1), LEASE, Duration.ofMinutes(1).plusNanos(1)));
        ClaimOutcome.Acquired again = assertInstanceOf(ClaimOutcome.Acquired.class,
                claim(store, key(0), LEASE, Duration.ofMinutes(1)));
        assertEquals(RecordState.COMPLETED, again.replaced().state(), "past its window, the record still counted");
        at(t(60_001));
        acquire(store, key(1), LEASE, Duration.ofMinutes(1).plusNanos(1));
    }

    @Test
    void ttlsUnderTenMillisecondsAreExactAndFractionsRoundUp() {
        InMemoryIdempotencyStore store = store(10);
        assertTrue(store.complete(key(0), acquire(store, key(0)), new byte[1], Duration.ofMillis(9)));
        assertTrue(store.fail(key(1), acquire(store, key(1)), new byte[1], Duration.ofMillis(4).plusNanos(1)));
        IdempotencyRecord first = store.get(key(0)).orElseThrow();
        assertEquals(t(9), first.expiresAt());
        assertEquals(t0, first.completedAt());
        assertEquals(t(5), store.get(key(1)).orElseThrow().expiresAt());
        assertEquals(RecordState.FAILED, store.get(key(1)).orElseThrow().state());

        at(t(4));
        assertTrue(store.get(key(1)).isPresent());
        at(t(5));
        assertFalse(store.get(key(1)).isPresent());
        at(t(8));
        assertTrue(store.get(key(0)).isPresent());
        assertInstanceOf(ClaimOutcome.Existing.class, claim(store, key(0), LEASE, Duration.ZERO));
        at(t(9));
        assertFalse(store.get(key(0)).isPresent());
        ClaimOutcome.Acquired again = assertInstanceOf(ClaimOutcome.Acquired.class,
                claim(store, key(0), LEASE, Duration.ZERO));
        assertNull(again.replaced(), "an expired record is not reported as replaced");
    }

    @Test
    void theJitterOfAShortTtlIsZeroOrOneMillisecondAndOfALongerOneUpToATenthBothIncluded() {
        InMemoryIdempotencyStore store = store(10_000);
        Set<Instant> tenMillis = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            assertTrue(store.complete(key(i), acquire(store, key(i)), new byte[1], Duration.ofMillis(10)));
            tenMillis.add(store.get(key(i)).orElseThrow().expiresAt());
        }
        assertEquals(Set.of(t(10), t(11)), tenMillis);

        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 200; i < 2_200; i++) { // each end is missed with a chance of (100/101)^2000, about 2e-9
            assertTrue(store.complete(key(i), acquire(store, key(i)), new byte[1], Duration.ofSeconds(1)));
            long expiresAfter = store.get(key(i)).orElseThrow().expiresAt().toEpochMilli() - t0.toEpochMilli();
            min = Math.min(min, expiresAfter);
            max = Math.max(max, expiresAfter);
        }
        assertEquals(1_000, min);
        assertEquals(1_100, max);
    }

    @Test
    void aTtlLeaseOrWindowNearOrBeyondLongMaxMillisSaturatesInsteadOfWrappingIntoThePast() {
        InMemoryIdempotencyStore store = store(10);
        assertTrue(store.complete(key(0), acquire(store, key(0)), new byte[1], Duration.ofMillis(Long.MAX_VALUE - 1)));
        assertTrue(store.complete(key(1), acquire(store, key(1)), new byte[1], ChronoUnit.FOREVER.getDuration()));
        acquire(store, key(2), ChronoUnit.FOREVER.getDuration(), Duration.ZERO);
        acquire(store, key(3), Duration.ofMillis(Long.MAX_VALUE).plusNanos(1), Duration.ZERO);
        assertTrue(store.complete(key(4), acquire(store, key(4), LEASE, ChronoUnit.FOREVER.getDuration()),
                new byte[1], Duration.ofMillis(Long.MAX_VALUE)));
        assertEquals(Instant.ofEpochMilli(Long.MAX_VALUE), store.get(key(0)).orElseThrow().expiresAt());
        assertEquals(Instant.ofEpochMilli(Long.MAX_VALUE), store.get(key(2)).orElseThrow().leaseUntil());

        clock.advance(Duration.ofDays(365L * 1_000));
        for (int i = 0; i < 5; i++) {
            assertInstanceOf(ClaimOutcome.Existing.class, claim(store, key(i), LEASE, Duration.ZERO), key(i));
        }
        assertInstanceOf(ClaimOutcome.Existing.class, claim(store, key(4), LEASE, ChronoUnit.FOREVER.getDuration()));

        assertTrue(store.fail(key(5), acquire(store, key(5)), new byte[1], Duration.ofSeconds(Long.MIN_VALUE)));
        assertFalse(store.get(key(5)).isPresent(), "a ttl beyond the range of longs below zero has passed");
    }

    @Test
    void recordsKeptForEverAreStillEvictedByTheBound() {
        InMemoryIdempotencyStore store = store(2);
        for (int i = 0; i < 3; i++) {
            completed(store, key(i), ChronoUnit.FOREVER.getDuration());
        }
        assertEquals(2, store.estimatedSize());
        assertEquals(List.of(key(0)), evictedKeys());
    }

    @Test
    void aClosedStoreRefusesEveryCall() {
        InMemoryIdempotencyStore store = store(10);
        long token = acquire(store, key(0));
        store.close();
        List<Runnable> calls = List.of(() -> claim(store, key(1), LEASE, Duration.ZERO),
                () -> store.complete(key(0), token, new byte[1], HOUR), () -> store.fail(key(0), token, new byte[1],
                        HOUR), () -> store.release(key(0), token), () -> store.renew(key(0), token, LEASE),
                () -> store.get(key(0)), () -> store.delete(key(0)), () -> store.watch(key(0)));
        for (Runnable call : calls) {
            assertEquals("the in-memory idempotency store is closed",
                    assertThrows(IdempotencyStoreException.class, call::run).getMessage());
        }
    }

    // ---------------------------------------------------------------- sweeping

    @Test
    void aFinishedRecordIsSweptAtExactlyCompletionPlusTtlPlusItsLargestJitter() {
        InMemoryIdempotencyStore store = store(100);
        completed(store, key(0), Duration.ofSeconds(10)); // swept at 11 s
        acquire(store, key(1), Duration.ofMillis(1), Duration.ZERO);

        at(t(10_999));
        acquire(store, key(2));
        assertEquals(3, store.estimatedSize());
        assertEquals(1, store.linkedInSweepQueues());

        at(t(11_000));
        acquire(store, key(1)); // a takeover is a write too
        assertEquals(2, store.estimatedSize());
        assertEquals(0, store.linkedInSweepQueues());
        assertEquals(2 * IN_PROGRESS_BYTES, store.estimatedBytes());
    }

    @Test
    void abandonedClaimsAreScannedForOnceEveryTenMinutesAndRemovedTenMinutesAfterTheirLease() {
        InMemoryIdempotencyStore store = store(1_000);
        acquire(store, key(0), Duration.ofMinutes(10), Duration.ZERO); // abandoned from 20 min
        acquire(store, key(1), Duration.ofMinutes(10).minusMillis(1), Duration.ZERO); // from 20 min - 1 ms
        long renewed = acquire(store, key(2), Duration.ofMinutes(10), Duration.ZERO);
        assertTrue(store.complete(key(3), acquire(store, key(3), Duration.ofMillis(1), Duration.ZERO), new byte[1],
                Duration.ofDays(1))); // finished: its lease no longer matters

        at(t(600_000)); // the first scan, due ten minutes after the store was made: nothing abandoned yet
        assertTrue(store.renew(key(2), renewed, Duration.ofSeconds(30)));
        acquire(store, key(10));
        assertEquals(5, store.estimatedSize());

        at(t(1_199_999)); // key(1) is abandoned, but the next scan is due at 20 min
        acquire(store, key(11));
        assertEquals(6, store.estimatedSize());
        assertTrue(store.get(key(1)).isPresent());

        at(t(1_200_000));
        acquire(store, key(12));
        assertFalse(store.get(key(0)).isPresent());
        assertFalse(store.get(key(1)).isPresent());
        assertTrue(store.get(key(2)).isPresent(), "renewed at 10 min: abandoned only from 20 min 30 s");
        assertTrue(store.get(key(3)).isPresent());
        assertEquals(5, store.estimatedSize());
        assertEquals(4 * IN_PROGRESS_BYTES + IN_PROGRESS_BYTES + 1, store.estimatedBytes());
        assertEquals(1, store.linkedInSweepQueues());

        at(t(1_230_000)); // key(2) and key(10) are abandoned now, but the next scan is due at 30 min
        acquire(store, key(13));
        assertEquals(6, store.estimatedSize());
    }

    /**
     * Records removed other than by their queue stay linked there until more than max(1024, maximumSize / 2) of
     * them add up; then the next write unlinks them all, the queue's tail and head included.
     */
    @Test
    void removedRecordsStayLinkedUntilMoreThanHalfTheMaximumSizeAddUpThenAreUnlinked() {
        compactsPast(4_000, 2_000);
    }

    @Test
    void removedRecordsStayLinkedUntilMoreThan1024AddUpInASmallStore() {
        compactsPast(2_000, 1_024);
    }

    private void compactsPast(long maximumSize, int threshold) {
        InMemoryIdempotencyStore store = store(maximumSize);
        for (int i = 0; i < threshold - 1; i++) { // the 1-hour queue's oldest part, all deleted below
            completed(store, key(i), HOUR);
        }
        completed(store, key(9_000), Duration.ofHours(3)); // a queue all of whose records are deleted
        for (int i = 9_001; i <= 9_003; i++) { // a 2-hour queue whose middle record is deleted
            completed(store, key(i), Duration.ofHours(2));
        }
        at(t(60_000));
        for (int i = threshold; i <= threshold + 100; i++) { // the live part, and a tail that is deleted
            completed(store, key(i), HOUR);
        }
        for (int i = 0; i < threshold - 1; i++) {
            store.delete(key(i));
        }
        store.delete(key(9_000));

        at(t(600_000)); // a scan is due: this write does housekeeping, but `threshold` removed records are no more
        acquire(store, key(10_000)); // than the queues may carry: they stay linked
        assertEquals(threshold + 104, store.linkedInSweepQueues());

        store.delete(key(threshold + 100)); // the 1-hour queue's tail
        store.delete(key(9_002)); // the 2-hour queue's middle
        acquire(store, key(10_001));
        assertEquals(100 + 2, store.linkedInSweepQueues());

        completed(store, key(20_000), HOUR); // appended behind the new tails
        completed(store, key(9_004), Duration.ofHours(2));
        assertEquals(104, store.linkedInSweepQueues());
        store.delete(key(threshold + 1));
        acquire(store, key(10_002)); // one removed record since the compaction: it stays
        assertEquals(104, store.linkedInSweepQueues());

        at(t(Duration.ofMinutes(66).toMillis())); // when the deleted head of the 1-hour queue was due
        acquire(store, key(10_003));
        assertEquals(104, store.linkedInSweepQueues(), "the live head of the 1-hour queue is due only at 67 min");
        at(t(Duration.ofMinutes(142).toMillis())); // everything is due: the last, key(9_004), at 10 + 132 min
        acquire(store, key(10_004));
        assertEquals(0, store.linkedInSweepQueues());
        assertEquals(0, evicted.size());
    }

    @Test
    void claimsReleasedTakenOverOrAbandonedWereNeverLinkedAndDoNotCountTowardsACompaction() {
        InMemoryIdempotencyStore store = store(2_000);
        for (int i = 0; i < 1_100; i++) {
            assertTrue(store.release(key(i), acquire(store, key(i))));
        }
        for (int i = 1_100; i < 1_200; i++) {
            acquire(store, key(i), Duration.ofMillis(1), Duration.ZERO);
        }
        at(t(1));
        for (int i = 1_100; i < 1_200; i++) {
            acquire(store, key(i), Duration.ofMillis(1), Duration.ZERO); // takeovers
        }
        at(t(Duration.ofMinutes(20).toMillis())); // their leases passed ten minutes ago: the scan removes them
        for (int i = 0; i < 10; i++) {
            completed(store, key(5_000 + i), HOUR);
            store.delete(key(5_000 + i));
        }
        assertEquals(0, store.estimatedSize());
        acquire(store, key(6_000));
        assertEquals(10, store.linkedInSweepQueues(), "10 removed records linked: no compaction due");
    }

    @Test
    void aRemovedRecordReachingTheHeadOfItsQueueNoLongerCountsTowardsACompaction() {
        InMemoryIdempotencyStore store = store(2_000);
        for (int i = 0; i < 1_000; i++) {
            completed(store, key(i), Duration.ofMinutes(1));
            store.delete(key(i));
        }
        at(t(66_000));
        acquire(store, key(5_000)); // all 1,000 reach the head and are dropped there
        assertEquals(0, store.linkedInSweepQueues());

        for (int i = 1_000; i < 1_030; i++) {
            completed(store, key(i), Duration.ofMinutes(1));
            store.delete(key(i));
        }
        acquire(store, key(5_001));
        assertEquals(30, store.linkedInSweepQueues(), "30 removed records since: no compaction due");
    }

    @Test
    void sixtyFourTtlsGetAQueueEachAndFurtherTtlsJoinTheNearestTheFirstMadeOnATie() {
        InMemoryIdempotencyStore store = store(1_000);
        for (int h = 64; h >= 1; h--) { // the 64-hour queue is made first, the 1-hour one last
            completed(store, key(h), Duration.ofHours(h));
        }
        assertEquals(64, store.sweepQueueCount());
        completed(store, key(100), Duration.ofSeconds(1)); // joins the 1-hour queue, behind its head
        completed(store, key(101), Duration.ofMinutes(90)); // as near to 1 h as to 2 h: the 2-hour queue, made first
        assertEquals(64, store.sweepQueueCount());

        at(t(2_000));
        completed(store, key(200), Duration.ofHours(64));
        assertFalse(store.get(key(100)).isPresent());
        assertEquals(64 + 2 + 1, store.estimatedSize(), "key(100) waits behind the head of its queue");

        at(t(Duration.ofMinutes(66).toMillis())); // the 1-hour head is swept, and key(100) behind it
        completed(store, key(201), Duration.ofHours(64));
        assertEquals(63 + 1 + 2, store.estimatedSize());

        at(t(Duration.ofMinutes(99).toMillis())); // key(101)'s sweep time (90 min and 9 of jitter) has come
        completed(store, key(202), Duration.ofHours(64));
        assertEquals(63 + 1 + 3, store.estimatedSize(), "key(101) waits behind the head of the 2-hour queue");

        at(t(Duration.ofMinutes(132).toMillis()));
        completed(store, key(203), Duration.ofHours(64));
        assertEquals(62 + 4, store.estimatedSize());
        assertEquals(64, store.sweepQueueCount());
    }

    // ---------------------------------------------------------------- eviction

    @Test
    void theByteBoundEvictsExactlyDownToOnePercentBelowItAndSaysSo() {
        InMemoryIdempotencyStore store = store(11, 10 * COMPLETED_BYTES);
        for (int i = 0; i < 10; i++) {
            completed(store, key(i), Duration.ofDays(3));
        }
        assertEquals(10 * COMPLETED_BYTES, store.estimatedBytes(), "exactly at the bound: nothing evicted");
        assertEquals(List.of(), evicted);

        at(t(Duration.ofDays(1).toMillis()));
        Instant expiresAt = store.get(key(0)).orElseThrow().expiresAt();
        acquire(store, key(10)); // 4,971 bytes in 11 records: down to 4,564, one record
        assertEquals(List.of(key(0)), evictedKeys());
        assertEquals(10 * COMPLETED_BYTES + IN_PROGRESS_BYTES - COMPLETED_BYTES, store.estimatedBytes());
        long left = (expiresAt.toEpochMilli() - clock.millis()) / 1_000; // from 2 days to 2 days 7 h 12 min
        String remaining = "2d" + (left % 86_400 >= 3_600 ? left % 86_400 / 3_600 + "h" : "")
                + (left % 3_600 >= 60 ? left % 3_600 / 60 + "m" : "") + (left % 60 > 0 ? left % 60 + "s" : "");
        IdempotencyEvent event = evicted.get(0);
        assertEquals(IdempotencyEventType.EVICTED, event.type());
        assertEquals("orders", event.operation());
        assertEquals("COMPLETED record evicted at age 1d (" + remaining + " before it would have expired) because"
                + " the store held about 4971 bytes in 11 records, over idem.memory.maximumBytes = 4610; a duplicate"
                + " of this key may run again", event.detail());

        assertTrue(store.complete(key(10), store.get(key(10)).orElseThrow().fencingToken(), new byte[100],
                Duration.ofDays(3)));
        assertEquals(1, evicted.size(), "back at the bound exactly");
    }

    @Test
    void theSizeBoundEvictsExactlyDownToOnePercentBelowItAndEachEventHasItsOwnDetail() {
        InMemoryIdempotencyStore store = store(300);
        for (int i = 0; i < 300; i++) {
            completed(store, key(i), Duration.ofDays(3));
            clock.advance(Duration.ofSeconds(1));
        }
        acquire(store, key(300)); // 301 records: down to 297
        assertEquals(keys(0, 4), evictedKeys());
        assertEquals(297, store.estimatedSize());
        for (int i = 0; i < 4; i++) {
            String detail = evicted.get(i).detail();
            String age = i == 0 ? "5m" : "4m" + (60 - i) + "s";
            assertTrue(detail.startsWith("COMPLETED record evicted at age " + age + " ("), detail);
            assertTrue(detail.endsWith(" before it would have expired) because the store held 301 records, over"
                    + " idem.memory.maximumSize = 300; a duplicate of this key may run again"), detail);
            assertEquals(1, detail.split("evicted").length - 1, detail);
        }
    }

    @Test
    void theByteBoundEvictsNoRecordBeyondAnExcessItMetExactly() {
        InMemoryIdempotencyStore store = store(1_000, 46_099);
        for (int i = 0; i < 100; i++) { // the 100th completion: 46,100 bytes, 461 over 99 % of the bound
            completed(store, key(i), HOUR);
        }
        assertEquals(List.of(key(0)), evictedKeys());
        assertEquals(99, store.estimatedSize());
    }

    @Test
    void aStoreAtExactlyItsSizeBoundEvictsForItsBytesOnly() {
        InMemoryIdempotencyStore store = store(200, 372_395);
        for (int i = 0; i < 3; i++) {
            assertTrue(store.complete(key(i), acquire(store, key(i)), new byte[100_000], HOUR));
        }
        for (int i = 3; i < 199; i++) {
            assertTrue(store.complete(key(i), acquire(store, key(i)), new byte[1], HOUR));
        }
        assertEquals(List.of(), evicted);

        acquire(store, key(199)); // 200 records, at the size bound; 372,396 bytes, one over the byte bound
        assertEquals(List.of(key(0)), evictedKeys());
        assertTrue(evicted.get(0).detail().contains("held about 372396 bytes in 200 records, over"
                + " idem.memory.maximumBytes = 372395;"), evicted.get(0).detail());
    }

    @Test
    void aStoreAtExactlyItsByteBoundEvictsForItsSizeOnly() {
        InMemoryIdempotencyStore store = store(10, 803_973);
        for (int i = 0; i < 10; i++) {
            assertTrue(store.complete(key(i), acquire(store, key(i)), new byte[i < 2 ? 1 : 100_000], HOUR));
        }
        assertEquals(List.of(), evicted);

        acquire(store, key(10)); // 11 records, one over the size bound; 803,973 bytes, at the byte bound
        assertEquals(List.of(key(0)), evictedKeys());
        assertTrue(evicted.get(0).detail().contains("held 11 records, over idem.memory.maximumSize = 10;"),
                evicted.get(0).detail());
    }

    @Test
    void aDeletedRecordStillLinkedIsSkippedByTheEvictionNeitherCountedNorReported() {
        InMemoryIdempotencyStore store = store(2);
        completed(store, key(0), HOUR);
        completed(store, key(1), HOUR);
        store.delete(key(0));
        completed(store, key(2), HOUR);
        acquire(store, key(3)); // 3 records: key(1) goes, key(0) was linked before it
        assertEquals(List.of(key(1)), evictedKeys());
        assertEquals(2, store.estimatedSize());
    }

    @Test
    void onATieOfSweepTimesTheQueueMadeFirstIsEvictedFrom() {
        InMemoryIdempotencyStore store = store(2);
        completed(store, key(0), Duration.ofMillis(2_000)); // swept at 2,200 ms
        at(t(1_100));
        completed(store, key(1), Duration.ofMillis(1_000)); // swept at 2,200 ms too
        acquire(store, key(2));
        assertEquals(List.of(key(0)), evictedKeys());
    }

    @Test
    void aRecordEvictedAtExactlyTheEndOfItsWindowIsNotReported() {
        InMemoryIdempotencyStore store = store(1);
        assertTrue(store.complete(key(0), acquire(store, key(0), LEASE, Duration.ofMinutes(1)), new byte[1], HOUR));
        at(t(59_999));
        assertTrue(store.complete(key(1), acquire(store, key(1), LEASE, Duration.ofMinutes(1)), new byte[1], HOUR));
        assertEquals(List.of(key(0)), evictedKeys());

        at(t(119_999)); // key(1)'s window ends
        acquire(store, key(2));
        assertEquals(0, store.linkedInSweepQueues(), "key(1) was evicted");
        assertEquals(List.of(key(0)), evictedKeys());
    }

    @Test
    void aRecordEvictedAtExactlyItsExpiryIsNotReportedAndOneMillisecondBeforeIs() {
        InMemoryIdempotencyStore store = store(1);
        completed(store, key(0), HOUR);
        at(store.get(key(0)).orElseThrow().expiresAt().minusMillis(1));
        completed(store, key(1), HOUR);
        assertEquals(List.of(key(0)), evictedKeys());

        // Unless the jitter drew its largest value (a chance of 1 in 360,001), key(1) is swept later than it expires:
        // at its expiry it is evicted, not swept. (If it did, it is swept here instead: unreported all the same.)
        at(store.get(key(1)).orElseThrow().expiresAt());
        acquire(store, key(2));
        assertEquals(0, store.linkedInSweepQueues(), "key(1) is gone");
        assertEquals(List.of(key(0)), evictedKeys());
    }

    @Test
    void aListenerThatThrowsIsLoggedAndTheEvictionStillHappens() {
        InMemoryIdempotencyStore store = store(1);
        store.addEvictionListener(new IdempotencyListener() {
            @Override
            public void onEvent(IdempotencyEvent event) {
                throw new IllegalStateException("a broken listener");
            }

            @Override
            public String toString() {
                return "the broken listener";
            }
        });
        completed(store, key(0), HOUR);
        completed(store, key(1), HOUR);
        assertEquals(1, store.estimatedSize());
        assertEquals(List.of(key(0)), evictedKeys());
        log.assertLogged(Level.WARNING, "eviction listener the broken listener threw");
    }

    // ---------------------------------------------------------------- watches

    @Test
    void everyWriteThatEndsAClaimOrDeletesARecordWakesTheWatchesOfItsKey() throws InterruptedException {
        InMemoryIdempotencyStore store = store(100);
        for (int i = 0; i < 4; i++) {
            try (KeyWatch watch = store.watch(key(i)).orElseThrow(); KeyWatch other = store.watch(key(99))
                    .orElseThrow()) {
                long token = acquire(store, key(i));
                assertTrue(store.renew(key(i), token, LEASE));
                boolean done = switch (i) {
                    case 0 -> store.complete(key(i), token, new byte[1], HOUR);
                    case 1 -> store.fail(key(i), token, new byte[1], HOUR);
                    case 2 -> store.release(key(i), token);
                    default -> {
                        store.delete(key(i));
                        yield true;
                    }
                };
                assertTrue(done);
                assertTrue(watch.await(0, TimeUnit.MILLISECONDS), "write " + i);
                assertFalse(other.await(0, TimeUnit.MILLISECONDS), "another key's watch");
            }
        }
    }
}
