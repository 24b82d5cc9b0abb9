package dev.idem.store;

import jakarta.annotation.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One stored record. Immutable, except that the {@code result} array is shared, not copied: a store keeps its own copy
 * of what it was given to store, but the array of a record it hands out may be shared with the store and with other
 * readers, so nobody modifies it.
 *
 * @param key          the full idempotency key
 * @param state        IN_PROGRESS, COMPLETED or FAILED (never ABSENT)
 * @param payloadHash  hex SHA-256 of the payload the execution ran with
 * @param owner        who claimed it
 * @param fencingToken the current claim's token
 * @param startedAt    when the execution started (kept across takeovers; the window counts from it)
 * @param leaseUntil   until when the owner holds the key (meaningful while IN_PROGRESS)
 * @param completedAt  when it finished, or null while IN_PROGRESS
 * @param expiresAt    when a finished record stops counting, or null while IN_PROGRESS
 * @param result       the encoded result (COMPLETED) or encoded failure (FAILED), or null while IN_PROGRESS
 */
public record IdempotencyRecord(
        String key,
        RecordState state,
        String payloadHash,
        String owner,
        long fencingToken,
        Instant startedAt,
        Instant leaseUntil,
        @Nullable Instant completedAt,
        @Nullable Instant expiresAt,
        @Nullable byte[] result) {

    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(payloadHash, "payloadHash");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(leaseUntil, "leaseUntil");
        if (state == RecordState.ABSENT) {
            throw new IllegalArgumentException("ABSENT is never stored");
        }
        if (state != RecordState.IN_PROGRESS && (completedAt == null || expiresAt == null || result == null)) {
            throw new IllegalArgumentException("a finished record needs completedAt, expiresAt and result");
        }
    }

    /** A fresh claim. */
    public static IdempotencyRecord inProgress(String key, String payloadHash, String owner, long fencingToken,
                                               Instant startedAt, Instant leaseUntil) {
        return new IdempotencyRecord(key, RecordState.IN_PROGRESS, payloadHash, owner, fencingToken, startedAt,
                leaseUntil, null, null, null);
    }

    /** True once a finished record has expired; an IN_PROGRESS record never expires, its lease passes instead. */
    public boolean isExpiredAt(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    /** True when the record is IN_PROGRESS and its lease has passed, so another caller may take over. */
    public boolean isLeaseExpiredAt(Instant now) {
        return state == RecordState.IN_PROGRESS && !now.isBefore(leaseUntil);
    }

    /**
     * The claim rule every store implements: whether a caller asking with {@code window} may claim over this
     * record at {@code now}.
     */
    public boolean isClaimableAt(Instant now, Duration window) {
        if (isExpiredAt(now) || isLeaseExpiredAt(now)) {
            return true;
        }
        return state != RecordState.IN_PROGRESS && !window.isZero() && !now.isBefore(startedAt.plus(window));
    }

    /**
     * This claim with its lease extended. Only a claim in progress has a lease: a finished record is never moved back
     * to IN_PROGRESS by a renewal.
     *
     * @throws IllegalStateException when the record is not IN_PROGRESS
     */
    public IdempotencyRecord withLease(Instant newLeaseUntil) {
        if (state != RecordState.IN_PROGRESS) {
            throw new IllegalStateException("only an in-progress claim has a lease to renew; " + key + " is " + state);
        }
        return new IdempotencyRecord(key, RecordState.IN_PROGRESS, payloadHash, owner, fencingToken,
                startedAt, newLeaseUntil, null, null, null);
    }

    public IdempotencyRecord finished(RecordState finalState, byte[] encoded, Instant now, Instant expires) {
        return new IdempotencyRecord(key, state.moveTo(finalState), payloadHash, owner, fencingToken, startedAt,
                leaseUntil, now, expires, encoded);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdempotencyRecord r
                && fencingToken == r.fencingToken
                && key.equals(r.key)
                && state == r.state
                && payloadHash.equals(r.payloadHash)
                && owner.equals(r.owner)
                && startedAt.equals(r.startedAt)
                && leaseUntil.equals(r.leaseUntil)
                && Objects.equals(completedAt, r.completedAt)
                && Objects.equals(expiresAt, r.expiresAt)
                && Arrays.equals(result, r.result);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, state, fencingToken) * 31 + Arrays.hashCode(result);
    }

    @Override
    public String toString() {
        return "IdempotencyRecord[key=" + key + ", state=" + state + ", token=" + fencingToken + ", owner=" + owner
                + ", startedAt=" + startedAt + ", leaseUntil=" + leaseUntil + ", completedAt=" + completedAt
                + ", expiresAt=" + expiresAt + ", result=" + (result == null ? "null" : result.length + " bytes")
                + "]";
    }
}
