package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * PostgreSQL's claims, with the statements of {@link PostgresqlClaimStatements}: outside the transactional mode
 * reading first (with a takeover of a claimable row as a statement of its own) or, while keys are new, inserting first
 * ({@link ClaimPaths}); in the transactional mode one statement that locks the key's row.
 */
final class PostgresqlClaims implements ClaimStrategy {
    /** The owner of {@link #heldByATransaction}'s stand-in record. */
    static final String HELD_BY_A_TRANSACTION = "a transaction on the store's database that holds the key's row";
    /** What {@link #insertFirst} returns when the key has a row: no token is negative. */
    private static final long NOT_INSERTED = -1;

    private final StoreClock clock;
    private final RecordStatements records;
    private final ClaimPaths claimPaths;
    private final String readingFirst;
    private final String insertingFirst;
    private final String takeover;
    private final String locking;

    PostgresqlClaims(String table, StoreClock clock, RecordStatements records, String nextToken,
                     ClaimPaths.Start start) {
        this.clock = clock;
        this.records = records;
        this.claimPaths = new ClaimPaths(start);
        this.readingFirst = PostgresqlClaimStatements.readingFirst(table, clock.sql(), nextToken);
        this.insertingFirst = PostgresqlClaimStatements.insertingFirst(table, clock.sql(), nextToken);
        this.takeover = PostgresqlClaimStatements.takeover(table, nextToken);
        this.locking = PostgresqlClaimStatements.locking(table, nextToken);
    }

    @Override
    public ClaimOutcome claim(Connection c, ClaimRequest request) throws SQLException {
        try {
            return claimPlain(c, request);
        } catch (SQLException e) {
            if (JdbcClaimTransaction.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                return heldByATransaction(c, request);
            }
            throw e;
        }
    }

    private ClaimOutcome claimPlain(Connection c, ClaimRequest request) throws SQLException {
        byte[] hash = KeyHashes.of(request.key());
        long lease = request.lease().toMillis();
        long window = request.window().toMillis();
        boolean insertFirst = claimPaths.insertFirst();
        if (insertFirst) {
            long token = insertFirst(c, hash, request, lease);
            claimPaths.found(token != NOT_INSERTED);
            if (token != NOT_INSERTED) {
                return new ClaimOutcome.Acquired(token, null);
            }
        }
        // A claim that reads nothing (a concurrent claim wrote the key's row after the statement read it) reads again.
        return ClaimStrategy.untilDecided(attempt -> claimReadingFirst(c, hash, request, lease, window,
                !insertFirst && attempt == 0));
    }

    /**
     * What a claim answers when it gave up waiting on another transaction's hold of the key's row or lock (past
     * {@link ClaimRequest#lockWait()}). When the key's record is committed by then and not claimable, that record,
     * as the claim would have met it had it run now: the losers of a race for a new key each take the key's lock in
     * turn, so under load a loser's wait can pass behind the other losers while the winner's row is long committed.
     * Otherwise (a transactional claim's uncommitted insert or lock), the key in progress, as a stand-in for the
     * record that transaction has not committed ({@link ClaimOutcome.Existing}), so the caller waits or gives up as
     * for an execution elsewhere. The failed statement changed nothing; the read waits on nothing.
     */
    private ClaimOutcome.Existing heldByATransaction(Connection c, ClaimRequest request) throws SQLException {
        RecordStatements.RecordAtNow committed = records.recordAtNow(c, request.key());
        IdempotencyRecord live = committed == null ? null : committed.live();
        if (live != null && !live.isClaimableAt(committed.now(), request.window())) {
            return new ClaimOutcome.Existing(live, committed.now());
        }
        Instant nowAt = clock.read(c);
        return new ClaimOutcome.Existing(new IdempotencyRecord(request.key(), RecordState.IN_PROGRESS,
                request.payloadHash(), HELD_BY_A_TRANSACTION, 0, nowAt, nowAt, null, null, null), nowAt);
    }

    /**
     * Outside the transactional mode: one statement that reads the key's row and, only when there is none, inserts it
     * (doing nothing if a concurrent claim inserted it meanwhile). A fresh key and a record the claim cannot take (a
     * replay, a caller of an execution in progress) are thus answered in one round trip, and the latter is a plain
     * read: the row is read as of the statement's snapshot without a lock, so no transaction id, no commit record to
     * flush, and no wait on a transaction that holds the row.
     *
     * <p>A row whose record is claimable (released, deleted, expired, or an in-progress record whose lease passed) is
     * rarer, and taken over by a second statement, {@link PostgresqlClaimStatements#takeover}: an {@code UPDATE} that
     * applies only while the row is still the version read (token, state, lease). It locks the row first and, when a
     * concurrent write changed it first, re-checks that guard on the latest version, which fails, so nothing is
     * written and the claim reads again; it reads the clock for the lease once it holds the lock. Claimability only
     * grows with time for one version, so an update that applies is a claim at that version.
     * Keeping the takeover out of the common statement keeps that statement small: PostgreSQL starts every node of a
     * statement's plan on each execution, whether or not it writes.
     */
    private Optional<ClaimOutcome> claimReadingFirst(Connection c, byte[] hash, ClaimRequest request, long lease,
                                                     long window, boolean tellClaimPaths) throws SQLException {
        StoredRow row;
        try (PreparedStatement ps = c.prepareStatement(readingFirst)) {
            long offset = clock.offset();
            int i = PostgresqlClaimStatements.bindLockWait(ps, 0, request);
            ps.setBytes(++i, hash);
            ps.setLong(++i, PostgresqlClaimStatements.keyLock(hash));
            ps.setBytes(++i, hash);
            i = PostgresqlClaimStatements.bindClaimedRecord(ps, i, request, offset, lease);
            ps.setLong(++i, offset);
            try (ResultSet rs = ps.executeQuery()) {
                boolean found = rs.next();
                long inserted = found ? rs.getLong("inserted") : 0;
                boolean absent = found && !rs.wasNull();
                if (tellClaimPaths) {
                    claimPaths.found(absent);
                }
                if (!found) {
                    return Optional.empty(); // no row as read, and a concurrent claim inserted it first
                }
                if (absent) {
                    return Optional.of(new ClaimOutcome.Acquired(inserted, null));
                }
                row = StoredRow.read(rs);
            }
        }
        Instant nowAt = Instant.ofEpochMilli(row.nowMillis());
        IdempotencyRecord live = row.liveAt(nowAt);
        if (live != null && !live.isClaimableAt(nowAt, Duration.ofMillis(window))) {
            return Optional.of(new ClaimOutcome.Existing(live, nowAt));
        }
        try (PreparedStatement ps = c.prepareStatement(takeover)) {
            long offset = clock.offset();
            int i = PostgresqlClaimStatements.bindLockWait(ps, 0, request);
            ps.setBytes(++i, hash);
            ps.setLong(++i, row.token());
            ps.setString(++i, row.state());
            ps.setLong(++i, row.leaseUntil());
            PostgresqlClaimStatements.bindClaimedRecord(ps, i, request, offset, lease);
            try (ResultSet rs = ps.executeQuery()) {
                // The store's time is the takeover's, which stamped the lease, not the read's before it.
                return rs.next() ? Optional.of(new ClaimOutcome.Acquired(rs.getLong(1), live,
                        Instant.ofEpochMilli(rs.getLong(2) + offset)))
                        : Optional.empty(); // a concurrent write changed the row first: read it again
            }
        }
    }

    /**
     * A claim of a key expected to be new ({@link ClaimPaths}): inserts the key's row unless it has one, and returns
     * the token drawn for it, or {@link #NOT_INSERTED} when the key has a row (as committed, or as written by a
     * transaction this statement waited on), which {@link #claimReadingFirst} then reads. Writes nothing when the key
     * has a row: the conflict is found before any tuple is written.
     */
    private long insertFirst(Connection c, byte[] hash, ClaimRequest request, long lease) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertingFirst)) {
            int i = PostgresqlClaimStatements.bindLockWait(ps, 0, request);
            ps.setLong(++i, PostgresqlClaimStatements.keyLock(hash));
            ps.setBytes(++i, hash);
            PostgresqlClaimStatements.bindClaimedRecord(ps, i, request, clock.offset(), lease);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : NOT_INSERTED;
            }
        }
    }

    /**
     * The transactional mode: the whole claim in one statement, {@code old} reading the key's row {@code FOR UPDATE}
     * whatever its record, so a concurrent transactional caller of the key waits on the row until this transaction
     * ends, and then sees what it committed; {@code ins} inserting the row when there was none (doing nothing if a
     * concurrent claim inserted it meanwhile), {@code upd} taking it over when its record is claimable at the
     * database's now. The row as read comes back with the outcome, for {@link ClaimOutcome.Existing} or
     * {@link ClaimOutcome.Acquired#replaced()}. A statement whose insert met a row a concurrent claim inserted runs
     * again.
     */
    @Override
    public ClaimOutcome claimLockingTheRow(Connection c, ClaimRequest request) throws SQLException {
        byte[] hash = KeyHashes.of(request.key());
        long lease = request.lease().toMillis();
        long window = request.window().toMillis();
        return ClaimStrategy.untilDecided(attempt -> {
            try (PreparedStatement ps = c.prepareStatement(locking)) {
                int i = 0;
                ps.setBytes(++i, hash);
                ps.setLong(++i, clock.offset());
                ps.setLong(++i, PostgresqlClaimStatements.keyLock(hash));
                ps.setBytes(++i, hash);
                ps.setString(++i, request.key());
                ps.setString(++i, request.payloadHash());
                ps.setString(++i, request.owner());
                ps.setLong(++i, lease);
                ps.setString(++i, request.key());
                ps.setString(++i, request.payloadHash());
                ps.setString(++i, request.owner());
                ps.setLong(++i, lease);
                ps.setBytes(++i, hash);
                ps.setLong(++i, window);
                ps.setLong(++i, window);
                return outcomeOfLockingStatement(ps);
            }
        });
    }

    /**
     * The outcome of the transactional mode's claim statement, or empty when its insert met a row a concurrent claim
     * inserted and it must run again.
     */
    private static Optional<ClaimOutcome> outcomeOfLockingStatement(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("the claim statement returned no row");
            }
            long inserted = rs.getLong("inserted");
            if (!rs.wasNull()) {
                return Optional.of(new ClaimOutcome.Acquired(inserted, null));
            }
            if (rs.getString("state") == null) {
                return Optional.empty();
            }
            StoredRow row = StoredRow.read(rs);
            Instant nowAt = Instant.ofEpochMilli(row.nowMillis());
            IdempotencyRecord live = row.liveAt(nowAt);
            long updated = rs.getLong("updated");
            if (!rs.wasNull()) {
                return Optional.of(new ClaimOutcome.Acquired(updated, live, nowAt));
            }
            if (live == null) {
                throw new SQLException("the key's row is claimable but was not claimed");
            }
            return Optional.of(new ClaimOutcome.Existing(live, nowAt));
        }
    }
}
