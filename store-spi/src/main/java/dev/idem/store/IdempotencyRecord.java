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

    /**
     * Checks the record. It does not check that a record in progress lacks {@code completedAt}, {@code expiresAt} and
     * {@code result}; {@link #inProgress} and {@link #withLease} make such records.
     *
     * @param key          the full idempotency key, exactly as claimed; not null
     * @param state        IN_PROGRESS, COMPLETED or FAILED; not null, never ABSENT
     * @param payloadHash  hex SHA-256 of the payload the execution ran with; not null
     * @param owner        who claimed it; not null
     * @param fencingToken the current claim's token
     * @param startedAt    when the execution started; not null
     * @param leaseUntil   until when the owner holds the key; not null
     * @param completedAt  when it finished; required for COMPLETED and FAILED, null while IN_PROGRESS
     * @param expiresAt    when it stops counting; required for COMPLETED and FAILED, null while IN_PROGRESS
     * @param result       the encoded result or failure, kept as given, not copied; required for COMPLETED and FAILED,
     *                     null while IN_PROGRESS
     * @throws NullPointerException     when {@code key}, {@code state}, {@code payloadHash}, {@code owner},
     *                                  {@code startedAt} or {@code leaseUntil} is null
     * @throws IllegalArgumentException when {@code state} is ABSENT, or a COMPLETED or FAILED record lacks
     *                                  {@code completedAt}, {@code expiresAt} or {@code result}
     */
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

    /**
     * A fresh claim: the record a store writes when {@link IdempotencyStore#claim} is acquired.
     *
     * @param key          the full idempotency key, exactly as claimed
     * @param payloadHash  the request's payload hash
     * @param owner        the request's owner
     * @param fencingToken the claim's new token: positive and larger than any the key had (the store's duty; not
     *                     checked here)
     * @param startedAt    the store's now, or for a takeover the taken-over record's {@code startedAt}
     * @param leaseUntil   the store's now plus the request's lease
     * @return an {@link RecordState#IN_PROGRESS IN_PROGRESS} record without {@code completedAt}, {@code expiresAt} or
     *         {@code result}
     * @throws NullPointerException when an argument is null
     */
    public static IdempotencyRecord inProgress(String key, String payloadHash, String owner, long fencingToken,
                                               Instant startedAt, Instant leaseUntil) {
        return new IdempotencyRecord(key, RecordState.IN_PROGRESS, payloadHash, owner, fencingToken, startedAt,
                leaseUntil, null, null, null);
    }

    /**
     * True once a finished record has expired; an IN_PROGRESS record never expires, its lease passes instead.
     *
     * @param now the store's current time
     * @return {@code true} when {@code expiresAt} is set and {@code now} is at or after it; {@code false} for a record
     *         without one (a claim in progress)
     */
    public boolean isExpiredAt(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    /**
     * True when the record is IN_PROGRESS and its lease has passed, so another caller may take over.
     *
     * @param now the store's current time
     * @return {@code true} when the record is IN_PROGRESS and {@code now} is at or after {@code leaseUntil};
     *         {@code false} for a finished record, whatever its {@code leaseUntil}
     */
    public boolean isLeaseExpiredAt(Instant now) {
        return state == RecordState.IN_PROGRESS && !now.isBefore(leaseUntil);
    }

    /**
     * The claim rule every store implements: whether a caller asking with {@code window} may claim over this
     * record at {@code now}.
     *
     * @param now    the store's current time
     * @param window the claiming request's {@link ClaimRequest#window() window}; {@link Duration#ZERO} means none
     * @return {@code true} when the record has expired, when it is IN_PROGRESS and its lease has passed (a takeover),
     *         or when it is finished, {@code window} is not zero and {@code now} is at or after {@code startedAt}
     *         plus {@code window} (a supersede); {@code false} otherwise, in particular for a claim in progress whose
     *         lease holds, however short the window
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
     * @param newLeaseUntil the end of the extended lease: the store's now plus the renewal's lease
     * @return a copy whose {@code leaseUntil} is {@code newLeaseUntil}; every other component, the fencing token and
     *         {@code startedAt} included, unchanged
     * @throws IllegalStateException when the record is not IN_PROGRESS
     */
    public IdempotencyRecord withLease(Instant newLeaseUntil) {
        if (state != RecordState.IN_PROGRESS) {
            throw new IllegalStateException("only an in-progress claim has a lease to renew; " + key + " is " + state);
        }
        return new IdempotencyRecord(key, RecordState.IN_PROGRESS, payloadHash, owner, fencingToken,
                startedAt, newLeaseUntil, null, null, null);
    }

    /**
     * This claim finished: the record {@link IdempotencyStore#complete} or {@link IdempotencyStore#fail} stores. The
     * array is kept as given, not copied, so a store passes its own copy.
     *
     * @param finalState {@link RecordState#COMPLETED COMPLETED} or {@link RecordState#FAILED FAILED}
     * @param encoded    the encoded result (COMPLETED) or encoded failure (FAILED)
     * @param now        the store's current time, which becomes {@code completedAt}
     * @param expires    when the finished record stops counting, normally {@link TtlJitter#expiresAt} of
     *                   {@code now} and the ttl
     * @return a record in {@code finalState} with the key, payload hash, owner, fencing token, {@code startedAt} and
     *         {@code leaseUntil} of this one
     * @throws IllegalStateException    when this record is already finished
     * @throws IllegalArgumentException when {@code finalState} is ABSENT, or {@code encoded}, {@code now} or
     *                                  {@code expires} is null
     */
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
