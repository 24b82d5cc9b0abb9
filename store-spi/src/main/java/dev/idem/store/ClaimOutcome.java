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
        public Acquired {
            if (fencingToken <= 0) {
                throw new IllegalArgumentException("fencing tokens are positive: " + fencingToken);
            }
        }
    }

    /** Another execution holds the key or finished it; the record is as read in the claim's round trip. */
    record Existing(IdempotencyRecord record) implements ClaimOutcome {
        public Existing {
            Objects.requireNonNull(record, "record");
        }
    }
}
