package dev.idem.store;

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
 */
public record ClaimRequest(String key, String payloadHash, String owner, Duration lease, Duration window) {

    /**
     * Checks the request, so a store may rely on every component being present and on the lease and window being
     * valid.
     *
     * @param key         the full idempotency key; not null
     * @param payloadHash hex SHA-256 of the payload parameters; not null
     * @param owner       who runs the execution; not null
     * @param lease       how long the claim is owned; positive
     * @param window      the deduplication horizon, {@link Duration#ZERO} for none; zero or positive
     * @throws NullPointerException     when any component is null
     * @throws IllegalArgumentException when {@code lease} is zero or negative, or {@code window} is negative
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
    }
}
