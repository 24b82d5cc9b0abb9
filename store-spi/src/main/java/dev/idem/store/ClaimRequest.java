package dev.idem.store;

import java.time.Duration;
import java.util.Objects;

/**
 * What a caller asks of {@link IdempotencyStore#claim}.
 *
 * @param key         the full idempotency key
 * @param payloadHash hex SHA-256 of the payload parameters, stored with the record for conflict detection
 * @param owner       who runs the execution (process and engine), for operators and takeover events
 * @param lease       how long the claim is owned before another caller may take over
 * @param window      the sliding deduplication horizon from the start of the execution; {@link Duration#ZERO}
 *                    means none (a finished record then holds until it expires)
 */
public record ClaimRequest(String key, String payloadHash, String owner, Duration lease, Duration window) {

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
