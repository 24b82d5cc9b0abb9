package dev.idem.store.tck;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import dev.idem.store.TtlJitter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The compatibility kit every {@link IdempotencyStore} passes: the store contract of SEMANTICS.md section 4, as the
 * {@link IdempotencyStore} javadoc states it, checked against a real instance.
 *
 * <h2>What a store's test overrides</h2>
 * <ul>
 *   <li>{@link #createStore(MutableClock)} (required): a new, open store. {@code clock} is the engine's (the JVM's)
 *       clock, as an {@link dev.idem.store.IdempotencyStoreProvider} would receive it.</li>
 *   <li>{@link #createStoreTime(MutableClock)}: the store's "now", which the TCK reads and moves instead of sleeping.
 *       The default is {@code clock} itself, right for a store that reads it. A store whose time is its server's
 *       (Redis {@code TIME}, SQL {@code now()}) returns a {@link StoreTime} that reads and moves the server's time,
 *       for example through a test-only offset the store adds to it; if that time moves on its own, its
 *       {@link StoreTime#tolerance()} says by how much. Called after {@code createStore}.</li>
 *   <li>{@link #createPeerStore(MutableClock)}: a second instance over the same backend (the same database or Redis),
 *       as a second process would open it. Every shared store should supply one: the default (none) skips the tests
 *       of instances sharing a backend, which is right only for a store that cannot be shared, like the in-memory
 *       one. Called at most once per test, after {@code createStore}.</li>
 *   <li>{@link #makeUnreachable(IdempotencyStore)}: cuts a store off from its backend. The default closes it; a
 *       server-backed store may stop the server or drop the connection instead.</li>
 *   <li>{@link #sweep(IdempotencyStore)}: one pass of the store's housekeeping that forgets records which no longer
 *       count, such as a sweeper deleting released and expired rows; the default has none.</li>
 * </ul>
 * The TCK closes every store it was given after each test. Keys carry a random prefix per test, so a store over a
 * shared server needs no cleaning between tests.
 *
 * <h2>What the tests prove</h2>
 * <ul>
 *   <li><b>Claim</b>: an absent key is claimed and stamped with the store's time; a losing claim returns the record
 *       exactly as stored; a lease holds to the millisecond and a takeover after it gets a larger token, records the
 *       new owner, payload hash and lease, keeps the execution's start and reports what it replaced; a renewal
 *       extends the lease from now; a window never ends an execution in progress.</li>
 *   <li><b>Transactional claims</b> (for a store that offers {@link IdempotencyStore#transactionalClaims}; skipped,
 *       saying so, for one that does not): a takeover or a supersede inside a transaction records the new owner's
 *       payload hash, as a plain one does, and commits its completion with it; one that rolls back leaves the record
 *       as it was.</li>
 *   <li><b>Keys</b>: compared exactly (case and trailing space count) and kept whole up to 2,048 characters.</li>
 *   <li><b>Fencing</b>: a write with a stale token, or with the token of a finished record, is refused and changes
 *       nothing; tokens keep increasing across release, deletion and expiry, so a late write of an earlier owner is
 *       always refused; and with many threads claiming, releasing and deleting one key against the store's sweep,
 *       the tokens in the order the key was held strictly increase.</li>
 *   <li><b>Results</b>: stored byte-exact, and copied, so the caller may reuse its array.</li>
 *   <li><b>Expiry and windows</b>: decided from timestamps at read time, to the millisecond (to the tolerance on a
 *       clock that moves on its own); ttl jitter within
 *       [0, 10%]; a finished record superseded exactly when its window passes, and held until expiry without one;
 *       a remembered failure replayed until its ttl passes.</li>
 *   <li><b>The store's own time</b>: a JVM clock running ahead or behind changes no stamp, lease or expiry. Runs only
 *       when the store's time does not follow the injected clock (the TCK moves that clock and looks).</li>
 *   <li><b>Races</b> of 32 threads, 20 rounds each: exactly one winner among claims of a fresh key, takeovers of a
 *       passed lease, supersedes of a passed window, an owner's completion against takeovers, and an owner's renewal
 *       against takeovers; every losing claim sees the winner's token and the record is the winner's.</li>
 *   <li><b>Instances sharing a backend</b> (needs {@link #createPeerStore}): one winner among claims and takeovers
 *       split across two instances, an owner's completion or renewal through one against takeovers through the other,
 *       tokens increasing across them, a takeover through one fencing the old owner on the other, and every write
 *       through one seen by the other. A per-instance lock, counter or cache fails.</li>
 *   <li><b>Watches</b> (for a store that offers {@link IdempotencyStore#watch}; skipped, saying so, for one that
 *       does not): a completion, failure, release or deletion of the key, through this instance or through another
 *       over the same backend, signals a watch opened before it, even when the write comes before the wait; a watch
 *       of a key nothing finishes is not signalled by another key's writes and its wait ends at its timeout; an
 *       unreachable store refuses to open one.</li>
 *   <li><b>Lifecycle</b>: an unreachable store reports {@link IdempotencyStoreException} from every operation; closing
 *       twice is harmless.</li>
 * </ul>
 *
 * <p>Every concurrency test has a timeout and fails rather than hangs. The TCK's own tests run it against a correct
 * reference store and against deliberately broken stores, one per defect, and check that each defect fails the
 * tests written for it and that every test here fails at least one broken store.
 */
public abstract class IdempotencyStoreTck {
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration TTL = Duration.ofMinutes(30);
    /** Keys up to this length are kept whole (see {@link IdempotencyStore}). */
    protected static final int MAX_KEY_LENGTH = IdempotencyStore.MAX_KEY_LENGTH;
    /** The largest {@link StoreTime#tolerance()} the TCK's margins allow, exclusive. */
    public static final long MAX_TOLERANCE_SECONDS = 5;

    private static final Duration NO_WINDOW = Duration.ZERO;
    private static final Duration FAILURE_TTL = Duration.ofSeconds(10);
    /** How long a watch of a key nothing finishes is watched for a signal that must not come. */
    private static final Duration QUIET = Duration.ofMillis(300);
    private static final int RACERS = 32;
    private static final int ROUNDS = 20;
    /** In the races of an owner's write against takeovers: claimers per key, and keys contested at once. */
    private static final int TAKERS_PER_KEY = 3;
    private static final int CONTESTED_KEYS = RACERS / (1 + TAKERS_PER_KEY);
    /** The race of holders of one key ends after this many holds, or after {@link #HOLDING_RACE}. */
    private static final int HOLDS = 20_000;
    private static final Duration HOLDING_RACE = Duration.ofSeconds(10);
    /** Outlasts that race even on a server's clock that moves at every reading, so no hold is taken over. */
    private static final Duration HOLDING_LEASE = Duration.ofDays(1);

    /** The engine's (the JVM's) clock, handed to {@link #createStore}. */
    protected MutableClock clock;
    /** The store's time, from {@link #createStoreTime}. */
    protected StoreTime time;
    protected IdempotencyStore store;
    private volatile IdempotencyStore peer;
    private String prefix;

    /** A new, open store; {@code clock} is the engine's clock, as a provider would receive it. */
    protected abstract IdempotencyStore createStore(MutableClock clock) throws Exception;

    /**
     * The store's time, which the TCK reads and moves. The default is {@code clock}, for a store that reads it; a
     * store keeping its server's time overrides this (see {@link StoreTime}).
     */
    protected StoreTime createStoreTime(MutableClock clock) throws Exception {
        return StoreTime.of(clock);
    }

    /**
     * A second instance over the backend of the store {@link #createStore} returned, as another process would open
     * it, sharing its time. The default is none, which skips the tests of instances sharing a backend: right only
     * for a store that cannot be shared.
     */
    protected Optional<IdempotencyStore> createPeerStore(MutableClock clock) throws Exception {
        return Optional.empty();
    }

    /**
     * How long a watch may take to be signalled after a write: a message through the backend, on a loaded machine.
     * The default, ten seconds, suits a server-backed store; a store that signals in-process may say less.
     */
    protected Duration signalledWithin() {
        return Duration.ofSeconds(10);
    }

    /**
     * Cuts the store off from its backend. The default closes it, which every store must answer with
     * {@link IdempotencyStoreException}; server-backed stores may override this to stop the server or drop the
     * connection instead.
     */
    protected void makeUnreachable(IdempotencyStore target) {
        target.close();
    }

    /**
     * Runs one pass of the store's own housekeeping that forgets records which no longer count (a sweeper deleting
     * released, deleted and expired records' rows), as it would run beside the store's callers; returns false when
     * the store has none apart from its writes, which is the default. The TCK races it against claims.
     */
    protected boolean sweep(IdempotencyStore target) {
        return false;
    }

    @BeforeEach
    void openStore() throws Exception {
        clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
        store = createStore(clock);
        time = createStoreTime(clock);
        Duration tolerance = time.tolerance();
        assertTrue(!tolerance.isNegative() && tolerance.compareTo(Duration.ofSeconds(MAX_TOLERANCE_SECONDS)) < 0,
                "StoreTime.tolerance() must be at least zero and under " + MAX_TOLERANCE_SECONDS + "s: " + tolerance);
        prefix = "idem:tck:" + UUID.randomUUID() + ":";
    }

    @AfterEach
    void closeStores() {
        try {
            if (peer != null) {
                peer.close();
            }
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }

    protected String key(String name) {
        return prefix + name;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Claim

    @Test
    void claimOfAnAbsentKeyIsAcquiredAndStoredInProgress() {
        String key = key("fresh");
        Instant before = time.now();
        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "a"),
                "claim of an absent key");
        Instant after = time.now();

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
        time.advance(Duration.ofSeconds(5)); // a store stamping the loser's own time into the answer shows it now

        IdempotencyRecord running = stored(key);
        assertEquals(running, existing(claim(key, "b"), "a claim while the lease holds"),
                "a claim losing to an execution in progress must return its record as stored");

        assertTrue(store.complete(key, token, new byte[] {4, 2}, TTL));
        time.advance(Duration.ofSeconds(5));
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

        Instant before = time.now();
        long token = acquire(key, "b");
        Instant after = time.now();

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
        long token = acquireVia(store, key, "a", window);
        advanceToJustBefore(stored(key).leaseUntil(), "the end of the lease"); // long past start + window

        IdempotencyRecord running = existing(claimVia(store, key, "b", window),
                "a claim after the window but within the lease must lose: a window applies to finished records only");
        assertEquals(token, running.fencingToken());
        assertEquals(RecordState.IN_PROGRESS, running.state());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Keys

    @Test
    void keysThatDifferOnlyInCaseAreDifferentKeys() {
        String lower = key("order-7f");
        String upper = key("ORDER-7F");
        acquire(lower, "a");

        assertInstanceOf(ClaimOutcome.Acquired.class, claim(upper, "b"),
                "a key that differs only in case is another key (a case-insensitive collation merges them)");
        assertEquals(lower, stored(lower).key());
        assertEquals("a", stored(lower).owner());
        assertEquals(upper, stored(upper).key());
        assertEquals("b", stored(upper).owner());
    }

    @Test
    void keysThatDifferOnlyInTrailingSpaceAreDifferentKeys() {
        String bare = key("order-7f");
        String padded = bare + " ";
        acquire(bare, "a");

        assertInstanceOf(ClaimOutcome.Acquired.class, claim(padded, "b"),
                "a key with a trailing space is another key (a PAD SPACE collation or a trim merges them)");
        assertEquals(bare, stored(bare).key());
        assertEquals("a", stored(bare).owner());
        assertEquals(padded, stored(padded).key(), "the key is kept with its trailing space");
        assertEquals("b", stored(padded).owner());
    }

    @Test
    void keysOf2048CharactersAreKeptWhole() {
        String stem = key("long-");
        String first = stem + "x".repeat(MAX_KEY_LENGTH - stem.length() - 1) + "1";
        String second = first.substring(0, MAX_KEY_LENGTH - 1) + "2";
        long token = acquire(first, "a");

        assertInstanceOf(ClaimOutcome.Acquired.class, claim(second, "b"),
                "keys of " + MAX_KEY_LENGTH + " characters that differ only in the last are different keys"
                        + " (a store that truncates keys merges them)");
        assertTrue(store.complete(first, token, new byte[] {1}, TTL));
        assertEquals(first, stored(first).key(), "the key is kept whole");
        assertEquals(RecordState.COMPLETED, stored(first).state());
        assertEquals(RecordState.IN_PROGRESS, stored(second).state(), "completing one long key leaves the other");
    }

    @Test
    void keysAreIndependent() {
        long a = acquire(key("one"), "a");
        long b = acquire(key("two"), "b");
        assertTrue(store.complete(key("one"), a, new byte[] {1}, TTL));

        assertEquals(RecordState.IN_PROGRESS, stored(key("two")).state());
        assertTrue(store.release(key("two"), b));
        assertEquals(RecordState.COMPLETED, stored(key("one")).state());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Fencing

    @Test
    void writesWithAStaleTokenAreRefusedAndChangeNothing() {
        String key = key("fenced");
        long stale = acquire(key, "a");
        advancePast(stored(key).leaseUntil());
        long current = acquire(key, "b");

        assertRefusedAndChangesNothing(key, "complete with a stale token",
                () -> store.complete(key, stale, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "fail with a stale token",
                () -> store.fail(key, stale, new byte[] {2}, TTL));
        assertRefusedAndChangesNothing(key, "renew with a stale token", () -> store.renew(key, stale, LEASE));
        assertRefusedAndChangesNothing(key, "release with a stale token", () -> store.release(key, stale));
        assertTrue(store.complete(key, current, new byte[] {3}, TTL), "the current token still completes");
    }

    @Test
    void writesWithTheTokenOfACompletedRecordAreRefusedAndChangeNothing() {
        String key = key("completed");
        long token = acquire(key, "a");
        assertTrue(store.complete(key, token, new byte[] {1}, TTL));

        assertRefusedAndChangesNothing(key, "a second complete",
                () -> store.complete(key, token, new byte[] {2}, TTL));
        assertRefusedAndChangesNothing(key, "fail after completion",
                () -> store.fail(key, token, new byte[] {3}, TTL));
        assertRefusedAndChangesNothing(key, "renew after completion", () -> store.renew(key, token, LEASE));
        assertRefusedAndChangesNothing(key, "release after completion", () -> store.release(key, token));
        assertArrayEquals(new byte[] {1}, stored(key).result());
    }

    @Test
    void writesWithTheTokenOfAFailedRecordAreRefusedAndChangeNothing() {
        String key = key("failed-writes");
        long token = acquire(key, "a");
        assertTrue(store.fail(key, token, new byte[] {9}, TTL));

        assertRefusedAndChangesNothing(key, "renew after failure", () -> store.renew(key, token, LEASE));
        assertRefusedAndChangesNothing(key, "release after failure", () -> store.release(key, token));
        assertRefusedAndChangesNothing(key, "complete after failure",
                () -> store.complete(key, token, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "a second fail", () -> store.fail(key, token, new byte[] {2}, TTL));
        assertEquals(RecordState.FAILED, stored(key).state());
    }

    @Test
    void releaseMakesTheKeyAbsentAndTokensKeepIncreasing() {
        String key = key("release");
        long first = acquire(key, "a");
        assertTrue(store.release(key, first));
        assertEquals(Optional.empty(), store.get(key));

        long second = acquire(key, "b");
        assertTrue(second > first, "tokens increase across release: " + first + " then " + second);
        assertRefusedAndChangesNothing(key, "complete of the released claim",
                () -> store.complete(key, first, new byte[] {1}, TTL));
    }

    @Test
    void tokensKeepIncreasingAfterDeleteSoAStaleOwnerIsRefused() {
        String key = key("deleted");
        long stale = acquire(key, "a");
        store.delete(key);

        long current = acquire(key, "b");
        assertTrue(current > stale, "tokens increase across deletion: " + stale + " then " + current);
        assertRefusedAndChangesNothing(key, "complete of the claim that was deleted",
                () -> store.complete(key, stale, new byte[] {1}, TTL));
    }

    @Test
    void tokensKeepIncreasingAfterExpirySoAStaleOwnerIsRefused() {
        String key = key("expired");
        long stale = acquire(key, "a");
        assertTrue(store.fail(key, stale, new byte[] {1}, FAILURE_TTL));
        advancePast(stored(key).expiresAt());

        long current = acquire(key, "b");
        assertTrue(current > stale, "tokens increase across expiry: " + stale + " then " + current);
        assertRefusedAndChangesNothing(key, "a late complete of the execution whose record expired",
                () -> store.complete(key, stale, new byte[] {2}, TTL));
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

    // ---------------------------------------------------------------------------------------------------------------
    // Results

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
            Instant before = time.now();
            assertTrue(store.complete(key, token, result.clone(), TTL));
            Instant after = time.now();

            IdempotencyRecord record = stored(key);
            assertEquals(RecordState.COMPLETED, record.state());
            assertArrayEquals(result, record.result(), "result of " + size + " bytes");
            assertStamped("completedAt", before, record.completedAt(), after);
            ClaimOutcome again = claim(key, "b");
            assertArrayEquals(result, existing(again, "a claim of a completed key").result());
        }
    }

    @Test
    void theStoreKeepsItsOwnCopyOfAResultOrFailure() {
        byte[] result = {1, 2, 3};
        String completed = key("copied-result");
        long token = acquire(completed, "a");
        assertTrue(store.complete(completed, token, result, TTL));
        result[0] = 99; // the caller reuses its buffer

        byte[] failure = {4, 5, 6};
        String failed = key("copied-failure");
        long other = acquire(failed, "a");
        assertTrue(store.fail(failed, other, failure, TTL));
        failure[0] = 99;

        assertArrayEquals(new byte[] {1, 2, 3}, stored(completed).result(),
                "changing the caller's array after complete must not change the stored result");
        assertArrayEquals(new byte[] {4, 5, 6}, stored(failed).result(),
                "changing the caller's array after fail must not change the stored failure");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Expiry and windows

    @Test
    void expiryIsDecidedAtReadTime() {
        String key = key("expiry");
        long token = acquire(key, "a");
        assertTrue(store.complete(key, token, new byte[] {7}, TTL));
        Instant expiresAt = stored(key).expiresAt();

        advanceToJustBefore(expiresAt, "the expiry");
        assertTrue(store.get(key).isPresent(), "just before expiry the record is there");
        existing(claim(key, "b"), "a claim just before expiry must lose");

        advancePast(expiresAt);
        assertEquals(Optional.empty(), store.get(key), "at expiry the record is gone");
        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"),
                "a claim at expiry");
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
            IdempotencyRecord record = stored(key);
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
        long token = acquireVia(store, key, "a", window);
        time.advance(Duration.ofSeconds(10));
        assertTrue(store.complete(key, token, new byte[] {1}, TTL));
        IdempotencyRecord finished = stored(key);
        Instant windowEnd = finished.startedAt().plus(window); // counted from the start, long before the ttl

        advanceToJustBefore(windowEnd, "the end of the window");
        IdempotencyRecord within = existing(claimVia(store, key, "b", window), "a claim within the window must lose");
        assertEquals(RecordState.COMPLETED, within.state());

        advancePast(windowEnd);
        Instant before = time.now();
        ClaimOutcome.Acquired superseding = assertInstanceOf(ClaimOutcome.Acquired.class,
                claimVia(store, key, "b", window), "a claim once the window passed supersedes");
        Instant after = time.now();
        assertTrue(superseding.fencingToken() > token);
        assertEquals(finished, superseding.replaced(), "the supersede reports the record it replaced");
        assertStamped("startedAt after a supersede (a new window)", before, stored(key).startedAt(), after);
    }

    @Test
    void aTransactionalTakeoverRecordsTheNewOwnerPayloadHashAndLease() {
        TransactionalClaims claims = transactionalClaimsOrSkip();
        String key = key("tx-takeover-record");
        acquire(key, "a");
        IdempotencyRecord abandoned = stored(key);
        advancePast(abandoned.leaseUntil());

        Instant before = time.now();
        long token = committedInTransaction(claims, key, "b", NO_WINDOW, abandoned);
        Instant after = time.now();

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
        long first = acquireVia(store, key, "a", window);
        assertTrue(store.complete(key, first, new byte[] {1}, TTL));
        IdempotencyRecord finished = stored(key);
        advancePast(finished.startedAt().plus(window));

        Instant before = time.now();
        long token = committedInTransaction(claims, key, "b", window, finished);
        Instant after = time.now();

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

    @Test
    void withoutAWindowAFinishedRecordHoldsUntilItExpires() {
        String key = key("no-window");
        long token = acquire(key, "a");
        assertTrue(store.complete(key, token, new byte[] {1}, TTL));
        advanceToJustBefore(stored(key).expiresAt(), "the expiry");

        existing(claim(key, "b"), "without a window a finished record holds until it expires");
    }

    @Test
    void aRememberedFailureIsReturnedUntilItsTtlPasses() {
        String key = key("failed");
        long token = acquire(key, "a");
        assertTrue(store.fail(key, token, new byte[] {9, 9}, FAILURE_TTL));

        IdempotencyRecord failed = existing(claim(key, "b"), "a claim while the failure is remembered");
        assertEquals(RecordState.FAILED, failed.state());
        assertArrayEquals(new byte[] {9, 9}, failed.result());

        advancePast(failed.expiresAt());
        assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"), "a claim once the failure's ttl passed");
    }

    @Test
    void renewExtendsTheLeaseFromNow() {
        String key = key("renew");
        long token = acquire(key, "a");
        IdempotencyRecord claimed = stored(key);
        time.advance(Duration.ofSeconds(20));

        Instant before = time.now();
        assertTrue(store.renew(key, token, LEASE));
        Instant after = time.now();
        assertStamped("leaseUntil after renew (now plus the lease)", before.plus(LEASE), stored(key).leaseUntil(),
                after.plus(LEASE));

        advancePast(claimed.leaseUntil());
        existing(claim(key, "b"), "the renewed lease must still hold after the first one would have passed");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The store's own time

    /**
     * A claim's answer may report the store's time (engines translate the record's instants into their own clock
     * with it); when it does, that is the time the store keeps, as moved here, not the JVM's clock. Covers a fresh
     * claim, a losing one, a takeover and a supersede.
     */
    @Test
    void aClaimReportsTheStoresTimeIfAny() {
        String key = key("store-time");
        time.advance(Duration.ofHours(1)); // away from the JVM's clocks, for a store that keeps its own time
        Instant before = time.now();
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, assertReportsTheStoresTime("a fresh claim",
                before, claim(key, "a")), "a claim of an absent key").fencingToken();

        time.advance(Duration.ofSeconds(5));
        existing(assertReportsTheStoresTime("a losing claim", time.now(), claim(key, "b")), "a claim while the lease"
                + " holds");

        advancePast(stored(key).leaseUntil());
        ClaimOutcome takeover = assertReportsTheStoresTime("a takeover", time.now(), claim(key, "b"));
        token = assertInstanceOf(ClaimOutcome.Acquired.class, takeover, "a claim once the lease passed")
                .fencingToken();

        assertTrue(store.complete(key, token, new byte[] {1}, TTL));
        time.advance(Duration.ofSeconds(5));
        existing(assertReportsTheStoresTime("a claim of a completed key", time.now(), claim(key, "c")),
                "a claim of a completed key");
        Duration window = Duration.ofSeconds(10);
        advancePast(stored(key).startedAt().plus(window));
        assertInstanceOf(ClaimOutcome.Acquired.class, assertReportsTheStoresTime("a supersede", time.now(),
                claimVia(store, key, "b", window)), "a claim once the window passed");
    }

    /** Asserts the answer's store time, if any, is the store's time since {@code before}; returns the answer. */
    private ClaimOutcome assertReportsTheStoresTime(String claim, Instant before, ClaimOutcome answer) {
        Instant after = time.now();
        if (answer.storeTime() != null) {
            assertStamped("the store's time reported by " + claim, before, answer.storeTime(), after);
        }
        return answer;
    }

    @Test
    void aJvmClockRunningAheadNeitherStampsRecordsNorEndsLeasesOrRecords() {
        assumeTheStoreKeepsItsOwnTime();
        String key = key("jvm-ahead");
        clock.advance(Duration.ofHours(1));

        Instant before = time.now();
        long token = acquire(key, "a");
        Instant after = time.now();
        assertStamped("startedAt with the JVM clock an hour ahead", before, stored(key).startedAt(), after);

        clock.advance(LEASE.multipliedBy(2));
        existing(claim(key, "b"), "a lease that holds in the store's time must hold whatever the JVM clock says");

        assertTrue(store.complete(key, token, new byte[] {1}, TTL));
        clock.advance(TTL.multipliedBy(2));
        assertTrue(store.get(key).isPresent(), "a record that has not expired in the store's time must be there");
    }

    @Test
    void aJvmClockRunningBehindKeepsNoLeaseOrRecordAlive() {
        assumeTheStoreKeepsItsOwnTime();
        String key = key("jvm-behind");
        acquire(key, "a");
        clock.set(clock.instant().minus(Duration.ofHours(1)));

        advancePast(stored(key).leaseUntil());
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, claim(key, "b"),
                "a lease that passed in the store's time must pass whatever the JVM clock says").fencingToken();

        assertTrue(store.fail(key, token, new byte[] {1}, FAILURE_TTL));
        advancePast(stored(key).expiresAt());
        assertEquals(Optional.empty(), store.get(key),
                "a record that expired in the store's time must be gone whatever the JVM clock says");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Races (32 threads released together, 20 rounds)

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void exactlyOneOfManyConcurrentClaimersWins() throws Exception {
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String key = key("race-" + round);

                List<Attempt> attempts = racers.race(claimers(key, i -> store, NO_WINDOW));

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

                List<Attempt> attempts = racers.race(claimers(key, i -> store, NO_WINDOW));

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
                long first = acquireVia(store, key, "first", window);
                assertTrue(store.complete(key, first, new byte[] {1}, TTL));
                advancePast(stored(key).startedAt().plus(window));

                List<Attempt> attempts = racers.race(claimers(key, i -> store, window));

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
                (key, token) -> store.complete(key, token, new byte[] {1}, TTL), RecordState.COMPLETED, store);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRenewalRacingTakeoversHasExactlyOneWinner() throws Exception {
        raceAnOwnersWriteAgainstTakeovers("renewal", (key, token) -> store.renew(key, token, LEASE),
                RecordState.IN_PROGRESS, store);
    }

    /**
     * Per round, {@value #CONTESTED_KEYS} keys whose lease passed, each contested by its owner's {@code write} and
     * {@value #TAKERS_PER_KEY} takeovers through {@code takers}. Both are legal until one happens (a passed lease nobody took over
     * still has the current token), so exactly one must win: the write, after which every claim loses, or one claim,
     * after which the write is refused.
     */
    private void raceAnOwnersWriteAgainstTakeovers(String write, OwnersWrite ownersWrite, RecordState afterWrite,
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

    /**
     * Claimers of one key, each holder logging its token while it holds the key and then releasing or deleting the
     * record, raced against the store's {@linkplain #sweep sweep} where it has one. Holds of one key never overlap
     * (their leases outlast the race), so the log is in holding order, and its tokens must
     * strictly increase: a claim that drew its token before it settled that the key is free can acquire with a token
     * below one the key had meanwhile.
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
                    if (store.claim(request) instanceof ClaimOutcome.Acquired acquired) {
                        long token = acquired.fencingToken();
                        synchronized (held) {
                            held.add(token); // while holding: the log's order is the holding order
                        }
                        holds.incrementAndGet();
                        if (deletes) {
                            store.delete(key);
                        } else if (!store.release(key, token)) {
                            return owner + " could not release its own claim " + token;
                        }
                    }
                }
                return null;
            });
        }
        contenders.add(() -> {
            while (racing.getAsBoolean() && sweep(store)) {
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

    // ---------------------------------------------------------------------------------------------------------------
    // Instances sharing a backend

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void concurrentClaimsThroughTwoInstancesHaveOneWinner() throws Exception {
        IdempotencyStore other = peerStore();
        try (Racers racers = new Racers(RACERS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String key = key("peer-race-" + round);

                List<Attempt> attempts = racers.race(claimers(key, i -> i % 2 == 0 ? store : other, NO_WINDOW));

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

                List<Attempt> attempts = racers.race(claimers(key, i -> i % 2 == 0 ? store : other, NO_WINDOW));

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
                (key, token) -> store.complete(key, token, new byte[] {1}, TTL), RecordState.COMPLETED, other);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRenewalThroughOneInstanceRacingTakeoversThroughTheOtherHasExactlyOneWinner() throws Exception {
        IdempotencyStore other = peerStore();
        raceAnOwnersWriteAgainstTakeovers("renewal", (key, token) -> store.renew(key, token, LEASE),
                RecordState.IN_PROGRESS, other);
    }

    @Test
    void tokensIncreaseAcrossInstances() throws Exception {
        IdempotencyStore other = peerStore();
        String key = key("peer-tokens");

        long first = acquireVia(store, key, "a", NO_WINDOW);
        assertTrue(store.release(key, first));
        long second = acquireVia(other, key, "b", NO_WINDOW);
        assertTrue(second > first, "a claim through the other instance after a release: " + first + " then " + second);

        other.delete(key);
        long third = acquireVia(store, key, "c", NO_WINDOW);
        assertTrue(third > second, "a claim through the first instance after a delete: " + second + " then " + third);

        advancePast(stored(key).leaseUntil());
        long fourth = acquireVia(other, key, "d", NO_WINDOW);
        assertTrue(fourth > third, "a takeover through the other instance: " + third + " then " + fourth);
    }

    @Test
    void aTakeoverThroughOneInstanceFencesTheOldOwnerOnTheOther() throws Exception {
        IdempotencyStore other = peerStore();
        String key = key("peer-fencing");
        long stale = acquireVia(store, key, "a", NO_WINDOW);
        advancePast(stored(key).leaseUntil());
        long current = acquireVia(other, key, "b", NO_WINDOW);
        assertTrue(current > stale, "the takeover's token must exceed the old one: " + stale + " then " + current);

        assertRefusedAndChangesNothing(key, "the old owner's complete",
                () -> store.complete(key, stale, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "the old owner's fail", () -> store.fail(key, stale, new byte[] {1}, TTL));
        assertRefusedAndChangesNothing(key, "the old owner's renew", () -> store.renew(key, stale, LEASE));
        assertRefusedAndChangesNothing(key, "the old owner's release", () -> store.release(key, stale));
        assertTrue(other.complete(key, current, new byte[] {2}, TTL), "the new owner completes");
    }

    @Test
    void writesThroughOneInstanceAreSeenByTheOther() throws Exception {
        IdempotencyStore other = peerStore();
        String key = key("peer-visibility");
        long token = acquireVia(store, key, "a", NO_WINDOW);
        assertEquals(store.get(key), other.get(key), "a claim through one instance is seen by the other");

        time.advance(Duration.ofSeconds(10));
        assertTrue(store.renew(key, token, LEASE));
        assertEquals(store.get(key), other.get(key), "a renewal through one instance is seen by the other");

        assertTrue(store.complete(key, token, new byte[] {5}, TTL));
        assertEquals(store.get(key), other.get(key), "a completion through one instance is seen by the other");
        assertEquals(stored(key), existing(claimVia(other, key, "b", NO_WINDOW), "a claim through the other"),
                "a claim through the other instance loses to the completion");

        store.delete(key);
        assertEquals(Optional.empty(), other.get(key), "a deletion through one instance is seen by the other");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Watches (IdempotencyStore.watch)

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatchIsSignalledByACompletionFailureReleaseOrDeletionOfItsKey() throws Exception {
        assertFinishingWritesSignal(store, "through this instance");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatchIsSignalledByWritesThroughAnotherInstance() throws Exception {
        assertFinishingWritesSignal(peerStore(), "through another instance over the same backend");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatchOfAKeyNothingFinishesIsNotSignalledAndItsWaitEnds() throws Exception {
        String key = key("watched-idle");
        String other = key("watched-idle-other");
        acquire(key, "a");
        try (KeyWatch watch = watchOf(key)) {
            long token = acquire(other, "a");
            assertTrue(store.complete(other, token, new byte[] {1}, TTL));
            store.delete(other);

            assertFalse(watch.await(QUIET.toMillis(), TimeUnit.MILLISECONDS),
                    "writes of another key must not signal this key's watch, and its wait must end at its timeout");
        }
    }

    @Test
    void anUnreachableStoreRefusesToOpenAWatch() {
        String key = key("watched-outage");
        try (KeyWatch open = watchOf(key)) {
            assertNotNull(open);
        }
        makeUnreachable(store);

        assertThrows(IdempotencyStoreException.class, () -> store.watch(key));
    }

    /** For each finishing write: a watch opened before it, written through {@code writer}, is signalled. */
    private void assertFinishingWritesSignal(IdempotencyStore writer, String how) throws InterruptedException {
        List<String> writes = List.of("complete", "fail", "release", "delete");
        for (String write : writes) {
            String key = key("watched-" + write);
            long token = acquire(key, "a");
            try (KeyWatch watch = watchOf(key)) {
                switch (write) {
                    case "complete" -> assertTrue(writer.complete(key, token, new byte[] {1}, TTL));
                    case "fail" -> assertTrue(writer.fail(key, token, new byte[] {2}, FAILURE_TTL));
                    case "release" -> assertTrue(writer.release(key, token));
                    default -> writer.delete(key);
                }
                // The write came before the wait: the signal must have been kept for it.
                assertTrue(watch.await(signalledWithin().toMillis(), TimeUnit.MILLISECONDS),
                        () -> "a " + write + " " + how + " must signal a watch of its key opened before it");
            }
        }
    }

    /** A watch of {@code key} through the store under test; the test is skipped when the store offers none. */
    private KeyWatch watchOf(String key) {
        Optional<KeyWatch> watch = store.watch(key);
        assumeTrue(watch.isPresent(), "the store offers no watches (IdempotencyStore.watch is not implemented), so"
                + " the engine polls it and there is nothing to test");
        return watch.get();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Lifecycle and outages

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

    @Test
    void closingTwiceIsHarmless() {
        store.close();

        assertDoesNotThrow(store::close, "closing a closed store must do nothing");
        assertThrows(IdempotencyStoreException.class, () -> store.get(key("closed")),
                "a store closed twice must still refuse work");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Helpers

    private static String payloadOf(String owner) {
        return "payload-" + owner;
    }

    private ClaimOutcome claim(String key, String owner) {
        return claimVia(store, key, owner, NO_WINDOW);
    }

    private static ClaimOutcome claimVia(IdempotencyStore target, String key, String owner, Duration window) {
        return target.claim(new ClaimRequest(key, payloadOf(owner), owner, LEASE, window));
    }

    private long acquire(String key, String owner) {
        return acquireVia(store, key, owner, NO_WINDOW);
    }

    private static long acquireVia(IdempotencyStore target, String key, String owner, Duration window) {
        ClaimOutcome outcome = claimVia(target, key, owner, window);
        return assertInstanceOf(ClaimOutcome.Acquired.class, outcome, "the claim of " + owner + " must be acquired")
                .fencingToken();
    }

    private static IdempotencyRecord existing(ClaimOutcome outcome, String claim) {
        return assertInstanceOf(ClaimOutcome.Existing.class, outcome, claim + " must lose to the existing record")
                .record();
    }

    /** The store's transactional claims, or the test is skipped for a store (or database) that offers none. */
    private TransactionalClaims transactionalClaimsOrSkip() {
        try {
            return store.transactionalClaims();
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

    private IdempotencyRecord stored(String key) {
        return store.get(key).orElseGet(() -> fail("no record of " + key));
    }

    private void assertRefusedAndChangesNothing(String key, String write, BooleanSupplier attempt) {
        IdempotencyRecord before = stored(key);
        assertFalse(attempt.getAsBoolean(), write + " must be refused");
        assertEquals(before, store.get(key).orElse(null), write + " must change nothing");
    }

    /** Asserts {@code actual} is the store's time during an operation bracketed by {@code before} and {@code after}. */
    private void assertStamped(String what, Instant before, Instant actual, Instant after) {
        Duration tolerance = time.tolerance();
        assertNotNull(actual, what);
        assertTrue(!actual.isBefore(before.minus(tolerance)) && !actual.isAfter(after.plus(tolerance)),
                () -> what + " was " + actual + ", not the store's time during the operation: between " + before
                        + " and " + after + (tolerance.isZero() ? "" : " give or take " + tolerance));
    }

    /** How far before an edge a "not yet" step stays: a millisecond on an exact clock, else the tolerance. */
    private Duration margin() {
        Duration tolerance = time.tolerance();
        return tolerance.isZero() ? Duration.ofMillis(1) : tolerance;
    }

    private void advanceToJustBefore(Instant edge, String what) {
        Instant target = edge.minus(margin());
        Duration by = Duration.between(time.now(), target);
        assertFalse(by.isNegative(), () -> "the store's time " + time.now() + " already passed " + what + " (" + edge
                + ") minus the margin " + margin() + ": StoreTime.tolerance() is too small for this store");
        if (!by.isZero()) {
            time.advance(by);
        }
    }

    /** Moves the store's time to {@code edge}, or past it by the tolerance, unless it is there already. */
    private void advancePast(Instant edge) {
        Duration by = Duration.between(time.now(), edge.plus(time.tolerance()));
        if (by.compareTo(Duration.ZERO) > 0) {
            time.advance(by);
        }
    }

    private void assumeTheStoreKeepsItsOwnTime() {
        Instant jvmBefore = clock.instant();
        Instant storeBefore = time.now();
        clock.advance(Duration.ofDays(1));
        boolean followsTheJvmClock = !time.now().isBefore(storeBefore.plus(Duration.ofDays(1)));
        clock.set(jvmBefore);
        assumeFalse(followsTheJvmClock, "the store's time is the injected clock (createStoreTime returns the"
                + " default), so a skewed JVM clock is the store's time and there is nothing to ignore; this applies"
                + " to stores that keep their server's time");
    }

    /** The second instance over this store's backend, or the test is skipped when there is none. */
    private IdempotencyStore peerStore() throws Exception {
        if (peer == null) {
            Optional<IdempotencyStore> created = createPeerStore(clock);
            assumeTrue(created.isPresent(), "createPeerStore gives no second instance over this store's backend"
                    + " (right only for a store that cannot be shared, like the in-memory one), so the tests of"
                    + " instances sharing a backend do not apply");
            assertNotSame(store, created.get(), "createPeerStore must open a second instance, not return the first");
            peer = created.get();
        }
        return peer;
    }

    private List<Callable<Attempt>> claimers(String key, StoreChoice via, Duration window) {
        List<Callable<Attempt>> claimers = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            claimers.add(claimer(via.storeFor(i), key, "racer-" + i, window));
        }
        return claimers;
    }

    private static Callable<Attempt> claimer(IdempotencyStore via, String key, String owner, Duration window) {
        return () -> Attempt.of(owner, claimVia(via, key, owner, window));
    }

    /** Asserts exactly one attempt won and every losing claim saw its token; returns the winner. */
    private static Attempt theOneWinner(List<Attempt> attempts, String race) {
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

    private void assertTheRecordIsTheWinners(String key, Attempt winner) {
        IdempotencyRecord record = stored(key);
        assertEquals(winner.token(), record.fencingToken(), () -> "the record of " + key + " must carry the token of "
                + winner + ": " + record);
        assertEquals(winner.who(), record.owner(), () -> "the record of " + key + " must be " + winner.who() + "'s");
    }

    /** One contender's part in a race: whether it won, and the token it won with or, losing a claim, saw. */
    private record Attempt(String who, boolean isClaim, boolean won, long token) {
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
    private interface StoreChoice {
        IdempotencyStore storeFor(int racer);
    }

    @FunctionalInterface
    private interface OwnersWrite {
        boolean apply(String key, long token);
    }
}
