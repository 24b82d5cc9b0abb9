package dev.idem.store;

import dev.idem.IdempotencyStoreException;
import jakarta.annotation.Nonnull;

import java.time.Duration;
import java.util.Optional;

/**
 * Where idempotency records live. The contract is SEMANTICS.md section 4: one atomic claim, and every later write
 * guarded by the claim's fencing token.
 *
 * <p>Time is the store's own: "now" in every rule below is read from the store's clock (for a server-backed store,
 * the server's), so processes with skewed clocks still agree. Expiry is decided from the record's timestamps when it
 * is read; a store's own eviction only frees memory and never decides an outcome.
 *
 * <p>Fencing tokens are positive and strictly increasing per key over the store's lifetime, including across
 * release, expiry and deletion of the key's record, so a late write of an earlier owner can always be recognised.
 *
 * <p>Every method reports an unreachable or failing backend as {@link IdempotencyStoreException}, never as a
 * driver's own exception type. Implementations are thread-safe.
 */
public interface IdempotencyStore extends AutoCloseable {

    /**
     * Claims {@code request.key()} in one atomic operation. The claim is {@link ClaimOutcome.Acquired acquired}
     * when no live record exists, when the record expired, when it is {@link RecordState#IN_PROGRESS IN_PROGRESS}
     * and its lease passed (a takeover), or when it finished and {@code request.window()} has passed since its
     * execution started (a supersede). Otherwise the existing record is returned in the same round trip.
     */
    @Nonnull
    ClaimOutcome claim(@Nonnull ClaimRequest request);

    /**
     * Moves the claim to {@link RecordState#COMPLETED COMPLETED} with {@code result}, kept for {@code ttl} plus up to
     * 10% jitter ({@link TtlJitter}).
     *
     * @return {@code false}, changing nothing, when {@code fencingToken} is not the record's current token
     */
    boolean complete(@Nonnull String key, long fencingToken, @Nonnull byte[] result, @Nonnull Duration ttl);

    /**
     * Moves the claim to {@link RecordState#FAILED FAILED} with an encoded failure, kept for {@code failureTtl}
     * plus jitter, so the failure is replayed rather than retried.
     *
     * @return {@code false}, changing nothing, when {@code fencingToken} is not the record's current token
     */
    boolean fail(@Nonnull String key, long fencingToken, @Nonnull byte[] failure, @Nonnull Duration failureTtl);

    /**
     * Removes the claim, so the key is absent and the next call runs.
     *
     * @return {@code false}, changing nothing, when {@code fencingToken} is not the record's current token
     */
    boolean release(@Nonnull String key, long fencingToken);

    /**
     * Extends the lease of an {@link RecordState#IN_PROGRESS IN_PROGRESS} claim to now plus {@code lease}.
     *
     * @return {@code false}, changing nothing, when the token is not current or the record is no longer in progress
     */
    boolean renew(@Nonnull String key, long fencingToken, @Nonnull Duration lease);

    /** The record of {@code key}, or empty when there is none or it expired. */
    @Nonnull
    Optional<IdempotencyRecord> get(@Nonnull String key);

    /** Removes the record of {@code key} whatever its state (an operator's action, not part of a call). */
    void delete(@Nonnull String key);

    /**
     * Releases the store's resources; afterwards every operation throws {@link IdempotencyStoreException}.
     * Closing twice is harmless.
     */
    @Override
    default void close() {
    }
}
