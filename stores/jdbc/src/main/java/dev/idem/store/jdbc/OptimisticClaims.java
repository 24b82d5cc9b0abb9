package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import jakarta.annotation.Nullable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The claims of MariaDB, H2 and SQLite, made optimistically. A claim reads the key's row with the database's now and,
 * when the row is absent or its record claimable, the next fencing token (one round trip, which for a replay writes
 * nothing; on SQLite the token is drawn by a statement of its own when the claim writes); when there is no row, one
 * INSERT that does nothing if a concurrent claim inserted it; when its record is claimable, one UPDATE guarded by the
 * version read (token, state, lease). Claimability only grows with time for one version, so a guarded write that
 * applies is a claim at that version. A write that does not apply lost to a concurrent write, and the claim reads
 * again. The token was drawn after the version the write replaces (or the deletion of the key's row) was committed,
 * so it is larger than any token the key had.
 */
final class OptimisticClaims implements ClaimStrategy {
    private final Dialect dialect;
    private final StoreClock clock;
    private final TokenCounter tokens;
    /** The read of the key's row that draws a token when it may claim; null on SQLite, which has no sequences. */
    @Nullable
    private final String readWithToken;
    /** The read of the key's row alone (SQLite). */
    private final String read;
    private final String insertFresh;
    /** The guarded updates of a claimable row: taking over an in-progress record, and replacing any other. */
    private final String takeOver;
    private final String replace;

    OptimisticClaims(String table, Dialect dialect, StoreClock clock, TokenCounter tokens) {
        this.dialect = dialect;
        this.clock = clock;
        this.tokens = tokens;
        String now = clock.sql();
        this.readWithToken = dialect.nextToken(table).map(next -> readDrawingATokenIfClaimable(table, now, next))
                .orElse(null);
        this.read = StoredRow.selectByKey(table, now);
        this.insertFresh = dialect.insertIfAbsent(table,
                "key_hash, idem_key, state, payload_hash, owner, fencing_token, started_at, lease_until",
                "?, ?, 'IN_PROGRESS', ?, ?, ?, " + now + ", " + now + " + ?");
        this.takeOver = guardedClaim(table, now, true);
        this.replace = guardedClaim(table, now, false);
    }

    /**
     * The optimistic claim's read of the key's row, with the database's now and, only when the row is absent or its
     * record claimable, the next fencing token. A replay or a caller of a running execution thus draws no token (a
     * sequence write, now and then flushed). The token is drawn as the row read is returned, after the read's
     * snapshot, so it is larger than the token of any version the read can see. The claimability here is only a hint:
     * the claim decides in Java, and draws a token by a statement of its own if this one drew none.
     * Parameters: the window twice (typed by the column it is added to, which H2 needs), the time offset, the key hash.
     */
    private static String readDrawingATokenIfClaimable(String table, String now, String nextToken) {
        String rowColumns = "r." + StoredRow.COLUMNS.replace(", ", ", r.");
        return "SELECT " + rowColumns + ", n.now_ms, CASE WHEN r.key_hash IS NULL OR r.state = '" + StoredRow.ABSENT
                + "'"
                + " OR (r.state = 'IN_PROGRESS' AND n.now_ms >= r.lease_until)"
                + " OR (r.state <> 'IN_PROGRESS' AND (n.now_ms >= r.expires_at"
                + " OR (r.started_at + ? > r.started_at AND n.now_ms >= r.started_at + ?)))"
                + " THEN " + nextToken + " END AS next_token"
                + " FROM (SELECT " + now + " AS now_ms) n LEFT JOIN " + table + " r ON r.key_hash = ?";
    }

    /**
     * The update claiming a row that is still the version read (token, state, lease); a takeover keeps the
     * in-progress record's start. Parameters: key, payload hash, owner, token, the start (the record's, or the time
     * offset), the time offset, the lease, then the key hash and the version's token, state and lease.
     */
    private static String guardedClaim(String table, String now, boolean takeover) {
        return "UPDATE " + table + " SET state = 'IN_PROGRESS',"
                + " idem_key = ?, payload_hash = ?, owner = ?, fencing_token = ?, started_at = "
                + (takeover ? "?" : now) + ", lease_until = " + now + " + ?,"
                + " completed_at = NULL, expires_at = NULL, result = NULL"
                + " WHERE key_hash = ? AND fencing_token = ? AND state = ? AND lease_until = ?";
    }

    @Override
    public ClaimOutcome claim(Connection c, ClaimRequest request) throws SQLException {
        byte[] hash = KeyHashes.of(request.key());
        long lease = request.lease().toMillis();
        long window = request.window().toMillis();
        return ClaimStrategy.untilDecided(attempt -> {
            try {
                return claimOnce(c, hash, request, lease, window);
            } catch (SQLException e) {
                if (!SqlErrors.isDeadlock(e) || !c.getAutoCommit()) {
                    throw e;
                }
                // A statement chosen as a deadlock's victim (MariaDB, against the sweeper's row locks) was rolled
                // back whole, and each statement stands alone: the claim reads again.
                return Optional.empty();
            }
        });
    }

    /** Refused: the transactional mode is PostgreSQL's only ({@link JdbcTransactionalClaims#whyNot}). */
    @Override
    public ClaimOutcome claimLockingTheRow(Connection c, ClaimRequest request) {
        throw new UnsupportedOperationException(JdbcTransactionalClaims.whyNot(dialect));
    }

    private Optional<ClaimOutcome> claimOnce(Connection c, byte[] hash, ClaimRequest request, long lease, long window)
            throws SQLException {
        StoredRow row;
        @Nullable Long token = null;
        try (PreparedStatement ps = c.prepareStatement(readWithToken != null ? readWithToken : read)) {
            int i = 0;
            if (readWithToken != null) {
                ps.setLong(++i, window);
                ps.setLong(++i, window);
            }
            ps.setLong(++i, clock.offset());
            ps.setBytes(++i, hash);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    row = null;
                } else {
                    if (readWithToken != null) {
                        long drawn = rs.getLong("next_token");
                        token = rs.wasNull() ? null : drawn;
                    }
                    row = rs.getString("state") == null ? null : StoredRow.read(rs);
                }
            }
        }
        if (row == null) {
            if (dialect == Dialect.SQLITE) {
                return drawAndInsertInOneWrite(c, hash, request, lease);
            }
            long fresh = token != null ? token : tokens.draw(c);
            return insertFresh(c, hash, request, lease, fresh)
                    ? Optional.of(new ClaimOutcome.Acquired(fresh, null)) : Optional.empty();
        }
        Instant nowAt = Instant.ofEpochMilli(row.nowMillis());
        IdempotencyRecord live = row.liveAt(nowAt);
        if (live != null && !live.isClaimableAt(nowAt, Duration.ofMillis(window))) {
            return Optional.of(new ClaimOutcome.Existing(live, nowAt));
        }
        boolean takeover = live != null && live.state() == RecordState.IN_PROGRESS;
        if (token == null) {
            token = tokens.draw(c); // SQLite; or where the read's hint of claimability and Java's disagreed
        }
        long offset = clock.offset();
        try (PreparedStatement ps = c.prepareStatement(takeover ? takeOver : replace)) {
            int i = 0;
            ps.setString(++i, request.key());
            ps.setString(++i, request.payloadHash());
            ps.setString(++i, request.owner());
            ps.setLong(++i, token);
            ps.setLong(++i, takeover ? live.startedAt().toEpochMilli() : offset);
            ps.setLong(++i, offset);
            ps.setLong(++i, lease);
            ps.setBytes(++i, hash);
            ps.setLong(++i, row.token());
            ps.setString(++i, row.state());
            ps.setLong(++i, row.leaseUntil());
            if (ps.executeUpdate() != 1) {
                return Optional.empty();
            }
        }
        return Optional.of(new ClaimOutcome.Acquired(token, live, nowAt));
    }

    /**
     * SQLite: draws the token and inserts the key's row in one write transaction. SQLite runs one writer at a time, so
     * no other write (another claim of the key, the sweeper's deletion of its row) comes between the draw and the
     * insert: a token drawn by a statement of its own before the insert could be below one a claim that held and
     * released the key meanwhile was given, once the sweeper had deleted that claim's row. On a connection already in
     * a transaction (not the store's own), that transaction keeps the write lock from the draw to its end.
     */
    private Optional<ClaimOutcome> drawAndInsertInOneWrite(Connection c, byte[] hash, ClaimRequest request, long lease)
            throws SQLException {
        if (!c.getAutoCommit()) {
            long token = tokens.draw(c);
            return insertFresh(c, hash, request, lease, token)
                    ? Optional.of(new ClaimOutcome.Acquired(token, null)) : Optional.empty();
        }
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            boolean inserted;
            long token;
            try {
                token = tokens.draw(c);
                inserted = insertFresh(c, hash, request, lease, token);
            } catch (SQLException | RuntimeException e) {
                try {
                    s.execute("ROLLBACK");
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            }
            s.execute("COMMIT");
            return inserted ? Optional.of(new ClaimOutcome.Acquired(token, null)) : Optional.empty();
        }
    }

    /** Inserts the key's row unless a concurrent first claim did; whether this one did. */
    private boolean insertFresh(Connection c, byte[] hash, ClaimRequest request, long lease, long token)
            throws SQLException {
        long offset = clock.offset();
        try (PreparedStatement ps = c.prepareStatement(insertFresh)) {
            ps.setBytes(1, hash);
            ps.setString(2, request.key());
            ps.setString(3, request.payloadHash());
            ps.setString(4, request.owner());
            ps.setLong(5, token);
            ps.setLong(6, offset);
            ps.setLong(7, offset);
            ps.setLong(8, lease);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (SqlErrors.isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }
}
