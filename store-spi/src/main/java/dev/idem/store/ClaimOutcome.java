package dev.idem.store;

import jakarta.annotation.Nullable;

import java.time.Instant;
import java.util.Objects;

/** The answer of {@link IdempotencyStore#claim}: the claim was acquired, or the live record that holds the key. */
public sealed interface ClaimOutcome permits ClaimOutcome.Acquired, ClaimOutcome.Existing {

    /**
     * The store's clock when it answered, on the clock its records' instants are on; null when the store did not
     * say. A store that stamps records with another clock than the caller's (a database's or a server's now) reports
     * it, so the caller can translate the record's instants into its own clock: the caller may keep a result until
     * {@code expiresAt - storeTime} has passed on its clock. The caller needs it only beside a record (a lost claim's
     * or a replaced one's), so a claim over nothing may report null. A store that stamps records with the caller's
     * clock may report null, and the caller then reads the record's instants as its own clock's.
     *
     * @return the store's time at the claim, read in the claim's round trip, or null
     */
    @Nullable
    Instant storeTime();

    /**
     * The caller owns the key until its lease passes.
     *
     * @param fencingToken the token every later write must carry
     * @param replaced     the record this claim replaced, if it was still stored: an in-progress record whose lease
     *                     passed (a takeover) or a finished record whose window passed (a supersede); null otherwise
     * @param storeTime    the store's clock when it answered ({@link ClaimOutcome#storeTime()}), or null
     */
    record Acquired(long fencingToken, @Nullable IdempotencyRecord replaced, @Nullable Instant storeTime)
            implements ClaimOutcome {
        /**
         * The outcome a store returns for a claim it granted.
         *
         * @param fencingToken the new claim's token, larger than any the key had; positive
         * @param replaced     the record the claim replaced, or null when the key was absent or its record expired
         * @param storeTime    the store's clock when it answered, or null when the store does not report it
         * @throws IllegalArgumentException when {@code fencingToken} is zero or negative
         */
        public Acquired {
            if (fencingToken <= 0) {
                throw new IllegalArgumentException("fencing tokens are positive: " + fencingToken);
            }
        }

        /**
         * A granted claim that does not report the store's time (as {@code storeTime} null).
         *
         * @param fencingToken the new claim's token, larger than any the key had; positive
         * @param replaced     the record the claim replaced, or null when the key was absent or its record expired
         * @throws IllegalArgumentException when {@code fencingToken} is zero or negative
         */
        public Acquired(long fencingToken, @Nullable IdempotencyRecord replaced) {
            this(fencingToken, replaced, null);
        }
    }

    /**
     * Another execution holds the key or finished it; the record is as read in the claim's round trip.
     *
     * @param record the live record the claim lost to, never null: {@link RecordState#IN_PROGRESS IN_PROGRESS} with
     *               its lease still holding, or COMPLETED or FAILED, not expired and (given a window) still within
     *               it; exactly as stored, equal to what {@link IdempotencyStore#get} would have returned then. One
     *               exception: a claim that gave up waiting on another transaction's hold of the key's row
     *               ({@link ClaimRequest#lockWait()}) cannot read the record that transaction has not committed, and
     *               answers a stand-in: IN_PROGRESS, the request's own payload hash (a conflict shows once the
     *               transaction commits), fencing token 0 (no claim's), an owner naming the open transaction, and
     *               the store's now as its start and lease
     * @param storeTime the store's clock when it answered ({@link ClaimOutcome#storeTime()}), or null
     */
    record Existing(IdempotencyRecord record, @Nullable Instant storeTime) implements ClaimOutcome {
        /**
         * The outcome a store returns for a claim that lost.
         *
         * @param record    the live record the claim lost to, as stored; not null
         * @param storeTime the store's clock when it answered (the time the record was judged live at), or null when
         *                  the store does not report it
         * @throws NullPointerException when {@code record} is null
         */
        public Existing {
            Objects.requireNonNull(record, "record");
        }

        /**
         * A lost claim that does not report the store's time (as {@code storeTime} null).
         *
         * @param record the live record the claim lost to, as stored; not null
         * @throws NullPointerException when {@code record} is null
         */
        public Existing(IdempotencyRecord record) {
            this(record, null);
        }
    }
}
