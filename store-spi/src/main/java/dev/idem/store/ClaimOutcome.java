package dev.idem.store;

import jakarta.annotation.Nullable;

import java.util.Objects;

/** The answer of {@link IdempotencyStore#claim}: the claim was acquired, or the live record that holds the key. */
public sealed interface ClaimOutcome permits ClaimOutcome.Acquired, ClaimOutcome.Existing {

    /**
     * The caller owns the key until its lease passes.
     *
     * @param fencingToken the token every later write must carry
     * @param replaced     the record this claim replaced, if it was still stored: an in-progress record whose lease
     *                     passed (a takeover) or a finished record whose window passed (a supersede); null otherwise
     */
    record Acquired(long fencingToken, @Nullable IdempotencyRecord replaced) implements ClaimOutcome {
        /**
         * The outcome a store returns for a claim it granted.
         *
         * @param fencingToken the new claim's token, larger than any the key had; positive
         * @param replaced     the record the claim replaced, or null when the key was absent or its record expired
         * @throws IllegalArgumentException when {@code fencingToken} is zero or negative
         */
        public Acquired {
            if (fencingToken <= 0) {
                throw new IllegalArgumentException("fencing tokens are positive: " + fencingToken);
            }
        }
    }

    /**
     * Another execution holds the key or finished it; the record is as read in the claim's round trip.
     *
     * @param record the live record the claim lost to, never null: {@link RecordState#IN_PROGRESS IN_PROGRESS} with
     *               its lease still holding, or COMPLETED or FAILED, not expired and (given a window) still within
     *               it; exactly as stored, equal to what {@link IdempotencyStore#get} would have returned then
     */
    record Existing(IdempotencyRecord record) implements ClaimOutcome {
        /**
         * The outcome a store returns for a claim that lost.
         *
         * @param record the live record the claim lost to, as stored; not null
         * @throws NullPointerException when {@code record} is null
         */
        public Existing {
            Objects.requireNonNull(record, "record");
        }
    }
}
