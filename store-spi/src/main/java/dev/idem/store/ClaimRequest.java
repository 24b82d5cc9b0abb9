package dev.idem.store;

import jakarta.annotation.Nullable;

import java.time.Duration;
import java.util.Objects;

/**
 * What a caller asks of {@link IdempotencyStore#claim}.
 *
 * @param key         the full idempotency key, {@code idem:{namespace}:{scope}:{hash}}, of at most
 *                    {@link IdempotencyStore#MAX_KEY_LENGTH} characters (the engine makes no longer one); stored and
 *                    compared exactly
 * @param payloadHash hex SHA-256 of the payload parameters, stored with the record for conflict detection
 * @param owner       who runs the execution (process and engine), for operators and takeover events
 * @param lease       how long the claim is owned before another caller may take over; positive, counted from the
 *                    store's now at the claim
 * @param window      the sliding deduplication horizon from the start of the execution; {@link Duration#ZERO}
 *                    means none (a finished record then holds until it expires); never negative
 * @param lockWait    the longest the claim may wait while another transaction holds the key's row (a claim of a
 *                    store's {@linkplain TransactionalClaims transactional mode}, until that transaction ends), after
 *                    which it answers the key as in progress ({@link ClaimOutcome.Existing}, a stand-in for the
 *                    uncommitted record); {@link Duration#ZERO} waits as briefly as the store can; null waits as long
 *                    as the store's database does. Stores whose claims never wait on a transaction ignore it.
 */
public record ClaimRequest(String key, String payloadHash, String owner, Duration lease, Duration window,
                           @Nullable Duration lockWait) {

    /**
     * Checks the request, so a store may rely on every component being present and on the lease and window being
     * valid.
     *
     * @param key         the full idempotency key; not null
     * @param payloadHash hex SHA-256 of the payload parameters; not null
     * @param owner       who runs the execution; not null
     * @param lease       how long the claim is owned; positive
     * @param window      the deduplication horizon, {@link Duration#ZERO} for none; zero or positive
     * @param lockWait    how long the claim may wait on another transaction's hold of the key's row; zero or
     *                    positive, or null for as long as the database waits
     * @throws NullPointerException     when any component but {@code lockWait} is null
     * @throws IllegalArgumentException when {@code lease} is zero or negative, or {@code window} or
     *                                  {@code lockWait} is negative
     */
    public ClaimRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(payloadHash, "payloadHash");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(window, "window");
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("lease must be positive: " + lease);
        }
        if (window.isNegative()) {
            throw new IllegalArgumentException("window must not be negative: " + window);
        }
        if (lockWait != null && lockWait.isNegative()) {
            throw new IllegalArgumentException("lockWait must not be negative: " + lockWait);
        }
    }

    /**
     * A claim that waits on another transaction's hold of the key's row as long as the database does
     * ({@code lockWait} null).
     *
     * @param key         the full idempotency key; not null
     * @param payloadHash hex SHA-256 of the payload parameters; not null
     * @param owner       who runs the execution; not null
     * @param lease       how long the claim is owned; positive
     * @param window      the deduplication horizon, {@link Duration#ZERO} for none; zero or positive
     * @throws NullPointerException     when any component is null
     * @throws IllegalArgumentException when {@code lease} is zero or negative, or {@code window} is negative
     */
    public ClaimRequest(String key, String payloadHash, String owner, Duration lease, Duration window) {
        this(key, payloadHash, owner, lease, window, null);
    }

    /**
     * This request with another {@code lockWait}.
     *
     * @param lockWait zero or positive, or null for as long as the database waits
     * @return a request that differs from this one in {@code lockWait} only
     */
    public ClaimRequest withLockWait(@Nullable Duration lockWait) {
        return new ClaimRequest(key, payloadHash, owner, lease, window, lockWait);
    }
}
