package dev.idem.store;

import dev.idem.IdempotencyStoreException;
import jakarta.annotation.Nonnull;

import java.time.Duration;
import java.util.Optional;

/**
 * Where idempotency records live. The contract is SEMANTICS.md section 4: one atomic claim, and every later write
 * guarded by the claim's fencing token. Every store proves it by passing {@code dev.idem.store.tck.IdempotencyStoreTck}.
 *
 * <p><b>Time</b> is the store's own: "now" in every rule below is read from the store's clock (for a server-backed
 * store, the server's), so processes with skewed clocks still agree. A store that keeps time itself reads the clock
 * its provider was given. Expiry is decided from the record's timestamps when it is read; a store's own eviction only
 * frees memory and never decides an outcome.
 *
 * <p><b>Fencing tokens</b> are positive and strictly increasing per key over the backend's lifetime, in the order the
 * key is held, including across release, expiry and deletion of the key's record (and the store's own removal of
 * it), and across every store instance (every process) that shares the backend, so a late write of an earlier owner
 * can always be recognised. A per-instance counter or lock is not enough, and neither is a counter drawn before the
 * claim is settled: a claim that drew, then waited while another claim held the key and its record was removed, would
 * acquire below that claim's token. The draw must come where no other claim of the key and no removal of its record
 * can come between it and the claim's write. A store that cannot make the draw and the write one step states the
 * bound within which the order holds (the JDBC store on H2 and MariaDB: a claim whose draw and insert are less than
 * a minute apart), and a downstream system that fences on tokens relies on no more than that.
 *
 * <p><b>Keys</b> are opaque and compared exactly, character for character: keys that differ only in case or in
 * trailing whitespace are different keys, and a record carries its key exactly as claimed. A store accepts keys of up
 * to {@link #MAX_KEY_LENGTH} (2,048) characters (a store whose index cannot hold that many indexes a hash of the key and keeps the key beside it).
 *
 * <p><b>Byte arrays.</b> {@link #complete} and {@link #fail} keep their own copy of the array they are given: the
 * caller may reuse or change its array once the call returns. A record a store hands out may share its array with
 * the store or with other readers, so nobody modifies a record's {@link IdempotencyRecord#result() result}.
 *
 * <p>Every method reports an unreachable or failing backend as {@link IdempotencyStoreException}, never as a
 * driver's own exception type; a backend that could not be reached at all (no connection, or it broke) as its
 * subclass {@link dev.idem.IdempotencyStoreUnreachableException}, so an outage is told from an error the backend
 * answered with ({@link StoreCircuit} refuses calls fast while it lasts). Implementations are thread-safe.
 */
public interface IdempotencyStore extends AutoCloseable {

    /** The longest key every store accepts; the engine refuses to make a longer one. */
    int MAX_KEY_LENGTH = 2048;

    /**
     * Claims {@code request.key()} in one atomic operation. The claim is {@link ClaimOutcome.Acquired acquired}
     * when no live record exists, when the record expired, when it is {@link RecordState#IN_PROGRESS IN_PROGRESS}
     * and its lease passed (a takeover), or when it finished and {@code request.window()} has passed since its
     * execution started (a supersede). A window never ends an execution in progress, however short it is: only a
     * passed lease does. Otherwise the existing record is returned in the same round trip, exactly as stored (as
     * {@link #get} would return it at that moment).
     *
     * <p>The claimed record carries the request's owner, payload hash and lease (now plus {@code request.lease()})
     * and a new fencing token larger than any the key had. A takeover keeps the taken-over execution's
     * {@code startedAt}, so the window still counts from the first start; any other claim starts at now.
     *
     * <p>A claim that meets the key's row held by another transaction (a claim of the store's
     * {@linkplain #transactionalClaims() transactional mode}, until that transaction ends) waits for it at most
     * {@link ClaimRequest#lockWait()}, then answers the key as in progress (the stand-in of
     * {@link ClaimOutcome.Existing#record()}), so its caller waits or gives up as for an execution elsewhere.
     *
     * @param request the key, what the claimed record carries (owner, payload hash, lease) and the window that
     *                decides whether a finished record is superseded
     * @return {@link ClaimOutcome.Acquired} with the new fencing token and the record the claim replaced (null when
     *         the key was absent or its record expired), or {@link ClaimOutcome.Existing} with the live record the
     *         claim lost to; never null
     */
    @Nonnull
    ClaimOutcome claim(@Nonnull ClaimRequest request);

    /**
     * Moves the claim to {@link RecordState#COMPLETED COMPLETED} with a copy of {@code result}, kept for {@code ttl}
     * plus up to 10% jitter ({@link TtlJitter}). A claim whose lease passed but that nobody took over still has the
     * current token and may complete, for as long as the store keeps it: a store may forget an abandoned in-progress
     * record once a grace period it documents has passed after the lease (so crashed owners' claims do not leak);
     * a live owner renews every third of its lease and never comes near it.
     *
     * @param key          the full idempotency key, as claimed; compared exactly
     * @param fencingToken the token of the claim being completed, from {@link ClaimOutcome.Acquired#fencingToken()}
     * @param result       the encoded result; the store keeps a copy, so the caller may reuse the array
     * @param ttl          how long the result is kept at least, counted from the store's now at completion: the
     *                     record's {@code expiresAt} lies in {@code [now + ttl, now + ttl * 1.1]}
     * @return {@code false}, changing nothing, when {@code fencingToken} is not the current token of an
     *         {@link RecordState#IN_PROGRESS IN_PROGRESS} record
     */
    boolean complete(@Nonnull String key, long fencingToken, @Nonnull byte[] result, @Nonnull Duration ttl);

    /**
     * Moves the claim to {@link RecordState#FAILED FAILED} with a copy of an encoded failure, kept for
     * {@code failureTtl} plus jitter, so the failure is replayed rather than retried.
     *
     * @param key          the full idempotency key, as claimed; compared exactly
     * @param fencingToken the token of the claim that failed, from {@link ClaimOutcome.Acquired#fencingToken()}
     * @param failure      the encoded failure; the store keeps a copy, so the caller may reuse the array
     * @param failureTtl   how long the failure is replayed at least, counted from the store's now: the record's
     *                     {@code expiresAt} lies in {@code [now + failureTtl, now + failureTtl * 1.1]}
     * @return {@code false}, changing nothing, when {@code fencingToken} is not the current token of an
     *         {@link RecordState#IN_PROGRESS IN_PROGRESS} record
     */
    boolean fail(@Nonnull String key, long fencingToken, @Nonnull byte[] failure, @Nonnull Duration failureTtl);

    /**
     * Removes the claim, so the key is absent and the next call runs. Only a claim in progress is released: a
     * finished record is never removed by its token (an operator uses {@link #delete}).
     *
     * @param key          the full idempotency key, as claimed; compared exactly
     * @param fencingToken the token of the claim being released, from {@link ClaimOutcome.Acquired#fencingToken()}
     * @return {@code false}, changing nothing, when {@code fencingToken} is not the current token of an
     *         {@link RecordState#IN_PROGRESS IN_PROGRESS} record
     */
    boolean release(@Nonnull String key, long fencingToken);

    /**
     * Extends the lease of an {@link RecordState#IN_PROGRESS IN_PROGRESS} claim to now plus {@code lease}. A finished
     * record (COMPLETED or FAILED) is never moved back to IN_PROGRESS. A claim whose lease passed but that nobody
     * took over still has the current token and may renew.
     *
     * @param key          the full idempotency key, as claimed; compared exactly
     * @param fencingToken the token of the claim being renewed, from {@link ClaimOutcome.Acquired#fencingToken()}
     * @param lease        the new lease, counted from the store's now (not added to the old {@code leaseUntil})
     * @return {@code false}, changing nothing, when the token is not current or the record is no longer in progress
     */
    boolean renew(@Nonnull String key, long fencingToken, @Nonnull Duration lease);

    /**
     * The record of {@code key}, or empty when there is none or it expired.
     *
     * @param key the full idempotency key; compared exactly
     * @return the record exactly as stored, in any state (an IN_PROGRESS record whose lease passed included); empty
     *         when there is none or it has expired by the store's clock, even if the backend still holds it
     */
    @Nonnull
    Optional<IdempotencyRecord> get(@Nonnull String key);

    /**
     * Removes the record of {@code key} whatever its state (an operator's action, not part of a call). An owner still
     * running loses its claim: its later writes are refused, and the key's next claim gets a larger token than its
     * own. Deleting an absent key does nothing.
     *
     * @param key the full idempotency key; compared exactly
     */
    void delete(@Nonnull String key);

    /**
     * Opens a {@link KeyWatch} of {@code key}, signalled when a {@link #complete}, {@link #fail}, {@link #release} or
     * {@link #delete} of the key takes effect through any instance over this store's backend: how a caller waiting
     * for another process's execution is woken when it ends, instead of polling. Optional: the default offers none
     * (an empty result), and the engine then polls by claiming, as it always did.
     *
     * <p>The watch is registered when this returns, so a waiter opens it, then claims the key again (the execution
     * may have ended meanwhile), then awaits; see {@link KeyWatch} for the contract. Opening a watch never blocks
     * longer than the store's own command timeout. The caller closes the watch.
     *
     * @param key the full idempotency key; compared exactly
     * @return the watch, or empty when this store does not offer watches (then, or while it cannot, the engine polls)
     * @throws IdempotencyStoreException when the store offers watches but cannot reach its backend to open one
     */
    @Nonnull
    default Optional<KeyWatch> watch(@Nonnull String key) {
        return Optional.empty();
    }

    /**
     * The store's claims inside a database transaction the method also writes in, for methods declared with
     * {@code @Idempotent(storeTransaction = ...)}. An optional operation: a store whose records do not live in such a
     * database does not override it. The engine asks once, when it plans such a method, and refuses the method
     * with this exception's message when the store cannot.
     *
     * @return the capability
     * @throws UnsupportedOperationException (the default) with a message that says why this store cannot
     */
    @Nonnull
    default TransactionalClaims transactionalClaims() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps its records outside the"
                + " database the method writes to, so its claim cannot share the method's transaction");
    }

    /**
     * Releases the store's resources; afterwards every operation throws {@link IdempotencyStoreException}.
     * Closing twice is harmless: the second close does nothing and throws nothing. Every store implements it (there
     * is no default), so none can forget that a closed store refuses work.
     */
    @Override
    void close();
}
