package dev.idem.store.jdbc;

import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import jakarta.annotation.Nullable;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * A row of the store's table as a statement read it, with the database's now of the same statement ({@code now_ms}),
 * and the record it holds. A row outlives its record: a released or deleted record leaves its row in the state
 * {@value #ABSENT}, which keeps the key's last fencing token.
 */
record StoredRow(String key, String state, String payloadHash, String owner, long token, long startedAt,
                 long leaseUntil, @Nullable Long completedAt, @Nullable Long expiresAt, @Nullable byte[] result,
                 long nowMillis) {
    /** The state of a row that holds no record. */
    static final String ABSENT = "ABSENT";
    /** The table's columns a row is read from (with {@code now_ms}), in the order of the DDL. */
    static final String COLUMNS = "idem_key, state, payload_hash, owner, fencing_token, started_at, "
            + "lease_until, completed_at, expires_at, result";

    /**
     * The read of a key's row with the store's now ({@code now}, an expression of one parameter). Parameters: the
     * time offset, the key hash.
     */
    static String selectByKey(String table, String now) {
        return "SELECT " + COLUMNS + ", " + now + " AS now_ms FROM " + table + " WHERE key_hash = ?";
    }

    /** Reads the current row of {@code rs}, which selected the table's columns and {@code now_ms}. */
    static StoredRow read(ResultSet rs) throws SQLException {
        long completed = rs.getLong("completed_at");
        Long completedAt = rs.wasNull() ? null : completed;
        long expires = rs.getLong("expires_at");
        Long expiresAt = rs.wasNull() ? null : expires;
        return new StoredRow(rs.getString("idem_key"), rs.getString("state"), rs.getString("payload_hash"),
                rs.getString("owner"), rs.getLong("fencing_token"), rs.getLong("started_at"),
                rs.getLong("lease_until"), completedAt, expiresAt, bytes(rs), rs.getLong("now_ms"));
    }

    /** The result; a finished row whose result reads as null held an empty one (some drivers read it so). */
    @Nullable
    private static byte[] bytes(ResultSet rs) throws SQLException {
        byte[] result = rs.getBytes("result");
        return result == null && rs.getLong("completed_at") != 0 && !rs.wasNull() ? new byte[0] : result;
    }

    /** The record, or null when the row holds none (released, deleted) or it expired at {@code now}. */
    @Nullable
    IdempotencyRecord liveAt(Instant now) {
        if (ABSENT.equals(state)) {
            return null;
        }
        IdempotencyRecord record = new IdempotencyRecord(key, RecordState.valueOf(state), payloadHash, owner,
                token, Instant.ofEpochMilli(startedAt), Instant.ofEpochMilli(leaseUntil),
                completedAt == null ? null : Instant.ofEpochMilli(completedAt),
                expiresAt == null ? null : Instant.ofEpochMilli(expiresAt), result);
        return record.isExpiredAt(now) ? null : record;
    }
}
