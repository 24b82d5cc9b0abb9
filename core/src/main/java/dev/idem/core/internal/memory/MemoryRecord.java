package dev.idem.core.internal.memory;

import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;

import java.time.Instant;

import static dev.idem.core.internal.memory.SaturatedMillis.plus;

/**
 * One record of the in-memory store, from its claim to its end. The claim's fields are final; the lease changes by
 * renewal, and the outcome is written once, under the record's lock, before {@link #state} publishes it.
 * {@link #removed} and every change of the key's mapping away from this record happen under the same lock, so a
 * record is the key's mapping exactly while it is not removed.
 */
public final class MemoryRecord {
    /**
     * The heap of one record beyond the characters of its key and payload hash and the bytes of its result: the
     * store's record, the hash table's node and slot, the two strings and the headers of their arrays and of the
     * result, as {@code benchmarks/MemoryPerRecord} measures it on JDK 17 with compressed references (see
     * docs/stores.md). An estimate: keys with characters beyond Latin-1 take more.
     */
    public static final int OVERHEAD_BYTES = 248;

    public final String key;
    public final String payloadHash;
    public final String owner;
    public final long token;
    public final long startedAt;
    /** startedAt + window; {@link Long#MAX_VALUE} without a window. */
    public final long supersedeAt;
    public volatile long leaseUntil;
    public volatile RecordState state = RecordState.IN_PROGRESS;
    /** The outcome's fields: written before {@link #state}, read after it. */
    public byte[] result;
    public long completedAt;
    public long expiresAt;
    /** When the sweep may remove it: completion + ttl + the largest jitter. */
    public long sweepAt;
    /** Guarded by this record's lock. */
    public boolean removed;
    /** The next record in its sweep queue, guarded by the queue. */
    MemoryRecord next;

    public MemoryRecord(String key, String payloadHash, String owner, long token, long startedAt, long leaseUntil,
                        long supersedeAt) {
        this.key = key;
        this.payloadHash = payloadHash;
        this.owner = owner;
        this.token = token;
        this.startedAt = startedAt;
        this.leaseUntil = leaseUntil;
        this.supersedeAt = supersedeAt;
    }

    /** Whether this record is finished and past its expiry at {@code now}. */
    public boolean isExpiredAt(long now) {
        return state != RecordState.IN_PROGRESS && now >= expiresAt;
    }

    /** {@link IdempotencyRecord#isClaimableAt}, on this record's millisecond stamps. */
    public boolean isClaimableAt(long now, long windowMillis) {
        RecordState s = state;
        if (s == RecordState.IN_PROGRESS) {
            return now >= leaseUntil;
        }
        return now >= expiresAt || windowMillis > 0 && now >= plus(startedAt, windowMillis);
    }

    /** Whether this is the claim {@code fencingToken}, still in progress: the fence of every write after a claim. */
    public boolean isCurrentClaim(long fencingToken) {
        return token == fencingToken && state == RecordState.IN_PROGRESS;
    }

    /** Whether this finished record still counts at {@code now}: not expired, within the window of its claim. */
    boolean countsAt(long now) {
        return !isExpiredAt(now) && now < supersedeAt;
    }

    /** The record as the SPI shows it, built only for a reader: the hot paths never need it. */
    public IdempotencyRecord record() {
        RecordState s = state;
        Instant started = Instant.ofEpochMilli(startedAt);
        Instant lease = Instant.ofEpochMilli(leaseUntil);
        return s == RecordState.IN_PROGRESS
                ? IdempotencyRecord.inProgress(key, payloadHash, owner, token, started, lease)
                : new IdempotencyRecord(key, s, payloadHash, owner, token, started, lease,
                Instant.ofEpochMilli(completedAt), Instant.ofEpochMilli(expiresAt), result);
    }

    /**
     * The estimated heap of this record (see {@link #OVERHEAD_BYTES}). Called holding the record's lock or on a
     * record no write can finish any more (new, or removed), so {@link #result} is null exactly while the record is
     * in progress.
     */
    public long estimatedBytes() {
        return estimate(key, payloadHash, result);
    }

    /** The estimated heap of a record of these fields; keys and hashes take a byte a char. */
    public static long estimate(String key, String payloadHash, byte[] result) {
        return OVERHEAD_BYTES + key.length() + payloadHash.length() + (result == null ? 0 : result.length);
    }
}
