package dev.idem.store.tck;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.IdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
 * The tests are in groups, one per concern, each a {@code @Nested} class of this one named as its heading here
 * ({@code Claims}, {@code ClaimsInATransaction}, {@code Keys}, {@code Fencing}, {@code Results},
 * {@code ExpiryAndWindows}, {@code TheStoresOwnTime}, {@code Races}, {@code InstancesSharingABackend},
 * {@code Watches}, {@code Lifecycle}); a store's test extends this class and runs them all, and its own tests beside
 * them. Every group reaches the hooks below and the store this class opens for each test.
 * <ul>
 *   <li><b>Claims</b>: an absent key is claimed and stamped with the store's time; a losing claim returns the record
 *       exactly as stored; a lease holds to the millisecond and a takeover after it gets a larger token, records the
 *       new owner, payload hash and lease, keeps the execution's start and reports what it replaced; a renewal
 *       extends the lease from now; a window never ends an execution in progress.</li>
 *   <li><b>Claims in a transaction</b> (for a store that offers {@link IdempotencyStore#transactionalClaims}; skipped,
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
 *       clock that moves on its own); ttl jitter within [0, 10%]; a finished record superseded exactly when its
 *       window passes, and held until expiry without one; a remembered failure replayed until its ttl passes.</li>
 *   <li><b>The store's own time</b>: a claim's answer reports it, if it reports a time; a JVM clock running ahead
 *       or behind changes no stamp, lease or expiry. Those two run only when the store's time does not follow the
 *       injected clock (the TCK moves that clock and looks).</li>
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

    /** The second instance over this store's backend, or the test is skipped when there is none. */
    IdempotencyStore peerStore() throws Exception {
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

    // ---------------------------------------------------------------------------------------------------------------
    // The groups: one @Nested class per concern, each running its contract's tests against this kit's store

    /** See {@link ClaimContract}. */
    @Nested
    class Claims extends ClaimContract {
        Claims() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link TransactionalClaimContract}. */
    @Nested
    class ClaimsInATransaction extends TransactionalClaimContract {
        ClaimsInATransaction() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link KeyContract}. */
    @Nested
    class Keys extends KeyContract {
        Keys() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link FencingContract}. */
    @Nested
    class Fencing extends FencingContract {
        Fencing() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link ResultContract}. */
    @Nested
    class Results extends ResultContract {
        Results() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link ExpiryContract}. */
    @Nested
    class ExpiryAndWindows extends ExpiryContract {
        ExpiryAndWindows() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link StoreTimeContract}. */
    @Nested
    class TheStoresOwnTime extends StoreTimeContract {
        TheStoresOwnTime() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link RaceContract}. */
    @Nested
    class Races extends RaceContract {
        Races() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link SharedBackendContract}. */
    @Nested
    class InstancesSharingABackend extends SharedBackendContract {
        InstancesSharingABackend() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link WatchContract}. */
    @Nested
    class Watches extends WatchContract {
        Watches() {
            super(IdempotencyStoreTck.this);
        }
    }

    /** See {@link LifecycleContract}. */
    @Nested
    class Lifecycle extends LifecycleContract {
        Lifecycle() {
            super(IdempotencyStoreTck.this);
        }
    }
}
