package dev.idem.store.jdbc;

import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.TtlJitter;
import jakarta.annotation.Nullable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The statements of everything but the claim, alike on every database: the writes after a claim, each carrying the
 * claim's fencing token and applying only while it is current (complete, fail, release, renew), the read of a
 * record, its deletion, and the sweeper's deletion of expired rows. Each is built once, for the store's table, and
 * runs on the connection it is given, in whatever transaction that connection is.
 */
final class RecordStatements {
    private final StoreClock clock;
    private final String complete;
    private final String fail;
    private final String release;
    private final String renew;
    private final String get;
    private final String delete;
    private final String deleteExpiredBatch;
    private final int deleteBatchConditions;
    private final long sweepMargin;
    private final int sweepBatchSize;

    RecordStatements(String table, Dialect dialect, StoreClock clock, int sweepBatchSize) {
        this.clock = clock;
        String now = clock.sql();
        this.complete = finishing(table, now, RecordState.COMPLETED);
        this.fail = finishing(table, now, RecordState.FAILED);
        // An absent record's expires_at is when it was released or deleted, from which the sweeper counts its margin.
        this.release = "UPDATE " + table + " SET state = '" + StoredRow.ABSENT + "', completed_at = NULL,"
                + " expires_at = " + now + ", result = NULL"
                + " WHERE key_hash = ? AND fencing_token = ? AND state = 'IN_PROGRESS'";
        this.renew = "UPDATE " + table + " SET lease_until = " + now + " + ?"
                + " WHERE key_hash = ? AND fencing_token = ? AND state = 'IN_PROGRESS'";
        this.get = StoredRow.selectByKey(table, now);
        this.delete = "UPDATE " + table + " SET state = '" + StoredRow.ABSENT + "', completed_at = NULL,"
                + " expires_at = " + now + ", result = NULL WHERE key_hash = ?";
        // A released or deleted record's row from when that happened (no time: released before the store kept one).
        String expired = "((state = 'IN_PROGRESS' AND lease_until + ? <= " + now + ")"
                + " OR (state <> 'IN_PROGRESS' AND (expires_at IS NULL OR expires_at + ? <= " + now + ")))";
        this.deleteExpiredBatch = dialect.deleteBatch(table, expired);
        this.deleteBatchConditions = dialect.deleteBatchConditions();
        this.sweepMargin = dialect.sweepsAfterAMargin ? JdbcIdempotencyStore.SWEEP_MARGIN.toMillis() : 0;
        this.sweepBatchSize = sweepBatchSize;
    }

    /**
     * The update finishing a claim in {@code state}. Parameters: the time offset twice, the time to live, the encoded
     * result, the key hash, the fencing token.
     */
    private static String finishing(String table, String now, RecordState state) {
        return "UPDATE " + table + " SET state = '" + state.name() + "', completed_at = " + now + ", expires_at = "
                + now + " + ?, result = ? WHERE key_hash = ? AND fencing_token = ? AND state = 'IN_PROGRESS'";
    }

    /** Finishes the claim in {@code state} (completed or failed), keeping {@code encoded} for the ttl, jittered. */
    boolean finish(Connection c, RecordState state, String key, long fencingToken, byte[] encoded, Duration ttl)
            throws SQLException {
        // The ttl and its jitter in whole milliseconds: the expiry counted from the epoch, added to the database's now.
        long keptMillis = TtlJitter.expiresAt(Instant.EPOCH, ttl).toEpochMilli();
        try (PreparedStatement ps = c.prepareStatement(state == RecordState.COMPLETED ? complete : fail)) {
            long offset = clock.offset();
            ps.setLong(1, offset);
            ps.setLong(2, offset);
            ps.setLong(3, keptMillis);
            ps.setBytes(4, encoded);
            ps.setBytes(5, KeyHashes.of(key));
            ps.setLong(6, fencingToken);
            return ps.executeUpdate() == 1;
        }
    }

    /** Releases the claim: the key's row stays, absent, with its token. */
    boolean release(Connection c, String key, long fencingToken) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(release)) {
            ps.setLong(1, clock.offset());
            ps.setBytes(2, KeyHashes.of(key));
            ps.setLong(3, fencingToken);
            return ps.executeUpdate() == 1;
        }
    }

    /** Moves the claim's lease to {@code leaseMillis} after the store's now. */
    boolean renew(Connection c, String key, long fencingToken, long leaseMillis) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renew)) {
            ps.setLong(1, clock.offset());
            ps.setLong(2, leaseMillis);
            ps.setBytes(3, KeyHashes.of(key));
            ps.setLong(4, fencingToken);
            return ps.executeUpdate() == 1;
        }
    }

    /** The key's record, unless it has none or it expired at the store's now. */
    Optional<IdempotencyRecord> get(Connection c, String key) throws SQLException {
        RecordAtNow read = recordAtNow(c, key);
        return read == null ? Optional.empty() : Optional.ofNullable(read.live());
    }

    /**
     * The key's record as {@link #get} reads it, with the store's now read by the same statement; null when the key
     * has no row (and so no now was read).
     */
    @Nullable
    RecordAtNow recordAtNow(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get)) {
            ps.setLong(1, clock.offset());
            ps.setBytes(2, KeyHashes.of(key));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                StoredRow row = StoredRow.read(rs);
                Instant now = Instant.ofEpochMilli(row.nowMillis());
                return new RecordAtNow(row.liveAt(now), now);
            }
        }
    }

    /**
     * A key's row read at the store's now.
     *
     * @param live the row's record, null when the row holds none or it expired at {@code now}
     * @param now  the store's now, read with the row
     */
    record RecordAtNow(@Nullable IdempotencyRecord live, Instant now) {
    }

    /** Deletes the key's record whatever its state: the key's row stays, absent, with its token. */
    boolean delete(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(delete)) {
            ps.setLong(1, clock.offset());
            ps.setBytes(2, KeyHashes.of(key));
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Deletes at most one batch of expired rows (see {@link JdbcIdempotencyStore.Builder#sweepInterval}), each checked
     * again as it is deleted, so a row claimed meanwhile stays.
     *
     * @return how many rows were deleted
     */
    int deleteExpiredBatch(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(deleteExpiredBatch)) {
            int i = 0;
            for (int k = 0; k < deleteBatchConditions; k++) {
                long offset = clock.offset();
                ps.setLong(++i, JdbcIdempotencyStore.ABANDONED_GRACE.toMillis());
                ps.setLong(++i, offset);
                ps.setLong(++i, sweepMargin);
                ps.setLong(++i, offset);
            }
            ps.setInt(++i, sweepBatchSize);
            return ps.executeUpdate();
        }
    }
}
