package dev.idem.store.jdbc;

import dev.idem.store.ClaimRequest;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;

/**
 * PostgreSQL's claim statements and how their parameters are bound: reading first (with the takeover of a claimable
 * row as a statement of its own), inserting first while keys are new ({@link ClaimPaths}), and locking the row (the
 * transactional mode). Every statement that inserts a key's row draws its token holding the key's lock
 * ({@link #keyLock}), and every plain claim bounds its waits by the request's lock wait ({@link #bindLockWait}). The
 * store builds each statement once, for its table, and runs it per call.
 */
final class PostgresqlClaimStatements {
    private PostgresqlClaimStatements() {
    }

    /**
     * PostgreSQL's claim statement outside the transactional mode ({@link PostgresqlClaims}'s read-first claim): {@code
     * old} reads the key's row, {@code ins} inserts it only when there was none, so a replay draws no token and writes
     * nothing. It returns the row as read with the database's now, or, for an insert, one row with the token in {@code
     * inserted}, or no row when the insert met a row a concurrent claim inserted. The token is drawn only for the row
     * it writes, holding the key's lock ({@link #PG_KEY_LOCKED}), which makes it larger than any the key had.
     * Parameters: the lock wait ({@link #BOUNDED_LOCK_WAIT}), the key hash, the key's lock, the key hash, key, payload
     * hash, owner, the time offset twice, the lease, the time offset.
     *
     * <p>The insert keeps {@code ON CONFLICT DO NOTHING} although {@code old} has just found the key absent. A plain
     * insert costs the server a little less CPU per fresh call (no speculative insertion), but two first claims of one
     * key that race (a herd of duplicates, the case Idem exists for) would then make the loser's statement fail on the
     * primary key, and PostgreSQL logs every such failure as an {@code ERROR}: noise in the log that operators watch,
     * for a loss that is expected.
     */
    static String readingFirst(String table, String now, String nextToken) {
        // A row as read is reported with the statement's time (statement_timestamp()): reading it waits on nothing.
        // The inserted row is stamped with the time the key's lock was got (KEY_CLOCK), which may be the end of a
        // transactional claim of the key. The lock wait is set before the key's lock is taken (key_locked reads
        // waits), so it bounds that wait too.
        return "WITH waits AS (SELECT " + BOUNDED_LOCK_WAIT + " AS lock_timeout),"
                + " old AS (SELECT " + StoredRow.COLUMNS + " FROM " + table + " WHERE key_hash = ?), "
                + PG_KEY_LOCKED_AFTER_WAITS
                + ", " + KEY_CLOCK
                + ", ins AS (INSERT INTO " + table + " (key_hash, idem_key, state, payload_hash, owner, fencing_token,"
                + " started_at, lease_until) SELECT ?, ?, 'IN_PROGRESS', ?, ?, " + nextToken + ", (clock.ms + ?),"
                + " (clock.ms + ?) + ? FROM clock WHERE NOT EXISTS (SELECT 1 FROM old)"
                + " ON CONFLICT (key_hash) DO NOTHING RETURNING fencing_token)"
                + " SELECT " + StoredRow.COLUMNS + ", " + now + " AS now_ms, CAST(NULL AS BIGINT) AS inserted FROM old"
                + " UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, fencing_token"
                + " FROM ins";
    }

    /**
     * Binds, after parameter {@code i}, the values PostgreSQL's claim statements write into a claimed row, in the order
     * they all name them: key, payload hash, owner, the time offset of {@code started_at}, and the time offset and
     * the lease of {@code lease_until}.
     *
     * @return the index of the last parameter bound
     */
    static int bindClaimedRecord(PreparedStatement ps, int i, ClaimRequest request, long offset, long lease)
            throws SQLException {
        ps.setString(++i, request.key());
        ps.setString(++i, request.payloadHash());
        ps.setString(++i, request.owner());
        ps.setLong(++i, offset);
        ps.setLong(++i, offset);
        ps.setLong(++i, lease);
        return i;
    }

    /**
     * PostgreSQL: a common table expression {@code key_locked} of one row that takes the key's lock (a transaction
     * advisory lock on {@link #keyLock}, its one parameter) when the insert reading from it runs. PostgreSQL computes
     * an inserted row, its token included, before it looks for a conflicting row, so a claim that drew its token
     * first could, if the key's row was deleted meanwhile, insert below a token the key had since; holding the key's
     * lock from before the draw to the end of the transaction, against the sweeper's deletion of the key's row under
     * the same lock ({@link Dialect#deleteBatch}) and against every other insert of the key, rules that out.
     * A takeover needs no lock: it updates the version it read, so no other claim can come between its draw and its
     * write. Only claims that insert take the lock, so a replay still writes nothing and waits on nothing.
     */
    private static final String PG_KEY_LOCKED = "key_locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(?))";

    /**
     * {@link #PG_KEY_LOCKED} for a plain claim's statement, taken after its {@code waits} set the lock wait
     * ({@link #BOUNDED_LOCK_WAIT}), so waiting for the key's lock (which a transactional claim of the key holds until
     * its transaction ends) is bounded as a wait on the key's row is.
     */
    private static final String PG_KEY_LOCKED_AFTER_WAITS =
            "key_locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(?) FROM waits)";

    /**
     * PostgreSQL: a common table expression {@code clock} of one row, {@code ms}, the database's clock (without the
     * time offset) read once {@link #PG_KEY_LOCKED_AFTER_WAITS} has the key's lock: the time a plain claim that
     * inserts the key's row stamps it with. Waiting for the lock may take up to the claim's lock wait (a
     * transactional claim of the key holds it until its transaction ends), and the statement's own time, from before
     * that wait, would start the lease that much early: partly or wholly past when the row is written.
     */
    private static final String KEY_CLOCK =
            "clock AS MATERIALIZED (SELECT " + Dialect.POSTGRESQL.clockMillis() + " AS ms FROM key_locked)";

    /**
     * The number PostgreSQL's claims lock a key by: the first eight bytes of its hash, as {@link Dialect#KEY_LOCK}
     * computes it from the stored hash. Two keys that share it only wait for each other's inserts.
     */
    static long keyLock(byte[] hash) {
        long lock = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            lock = lock << 8 | (hash[i] & 0xFF);
        }
        return lock;
    }

    /**
     * PostgreSQL: sets {@code lock_timeout} to the request's {@link ClaimRequest#lockWait()} (in milliseconds; left as
     * it is when the request has none) for the rest of the claim's statement, before it writes: its only waits are on
     * another transaction's hold of the key's row (an uncommitted insert, or a lock to take it over), and a
     * transactional claim holds the row until its transaction ends. Local to the statement's own transaction (the
     * store runs it in auto-commit mode), so the connection keeps its setting. Its one parameter: the milliseconds.
     */
    private static final String BOUNDED_LOCK_WAIT =
            "set_config('lock_timeout', COALESCE(?, current_setting('lock_timeout')), true)";

    /** Binds, after parameter {@code i}, the lock wait of {@link #BOUNDED_LOCK_WAIT}; returns the last index bound. */
    static int bindLockWait(PreparedStatement ps, int i, ClaimRequest request) throws SQLException {
        Duration wait = request.lockWait();
        if (wait == null) {
            ps.setNull(++i, Types.VARCHAR);
        } else {
            // 0 would mean "wait forever" to PostgreSQL: the shortest wait it takes is a millisecond.
            ps.setString(++i, Long.toString(Math.max(1, Math.min(Integer.MAX_VALUE, wait.toMillis()))));
        }
        return i;
    }

    /**
     * The statement of {@link PostgresqlClaims}'s insert-first claim, a claim of a key expected to be new ({@link
     * ClaimPaths}). The token is drawn holding the key's lock, as in {@link #readingFirst}, and the lock wait is set
     * before that lock is taken. Parameters: the lock wait, the key's lock, the key hash, key, payload hash, owner, the
     * time offset twice, the lease.
     */
    static String insertingFirst(String table, String now, String nextToken) {
        return "WITH waits AS (SELECT " + BOUNDED_LOCK_WAIT + " AS lock_timeout), " + PG_KEY_LOCKED_AFTER_WAITS
                + ", " + KEY_CLOCK + " INSERT INTO " + table + " (key_hash, idem_key, state, payload_hash, owner,"
                + " fencing_token, started_at, lease_until) SELECT ?, ?, 'IN_PROGRESS', ?, ?, " + nextToken + ","
                + " (clock.ms + ?), (clock.ms + ?) + ? FROM clock ON CONFLICT (key_hash) DO NOTHING"
                + " RETURNING fencing_token";
    }

    /**
     * PostgreSQL's takeover of a row whose record {@link PostgresqlClaims}'s read-first claim found claimable: applies
     * only to the version read (token, state, lease), drawing the token as it writes, after that version was committed.
     * {@code locked} locks the row first, still that version, and the clock is read only then ({@code clock}): an
     * UPDATE computes its new values before it waits on a row lock (a transactional claim's, up to the lock wait), so a
     * lease stamped by it could count from before the wait, and be partly or wholly past once written. Holding the
     * row's lock, the update writes the version {@code locked} checked. Returns the token and the clock read (without
     * the time offset). Parameters: the lock wait, the key hash, the version read's token, state and lease, then key,
     * payload hash, owner, the time offset twice and the lease.
     */
    static String takeover(String table, String nextToken) {
        return "WITH waits AS (SELECT " + BOUNDED_LOCK_WAIT + " AS lock_timeout),"
                + " locked AS MATERIALIZED (SELECT r.key_hash FROM " + table + " r, waits"
                + " WHERE r.key_hash = ? AND r.fencing_token = ? AND r.state = ? AND r.lease_until = ?"
                + " FOR UPDATE OF r),"
                + " clock AS MATERIALIZED (SELECT " + Dialect.POSTGRESQL.clockMillis() + " AS ms, key_hash FROM locked)"
                + " UPDATE " + table + " AS t SET state = 'IN_PROGRESS', idem_key = ?, payload_hash = ?, owner = ?,"
                + " fencing_token = " + nextToken + ","
                + " started_at = CASE WHEN t.state = 'IN_PROGRESS' THEN t.started_at ELSE (clock.ms + ?) END,"
                + " lease_until = (clock.ms + ?) + ?, completed_at = NULL, expires_at = NULL, result = NULL"
                + " FROM clock WHERE t.key_hash = clock.key_hash"
                + " RETURNING t.fencing_token, clock.ms";
    }

    /**
     * PostgreSQL's claim statement in the transactional mode ({@link PostgresqlClaims#claimLockingTheRow}). It draws
     * the token only for the row it writes, after the row it replaces was read and locked as committed, or, when there
     * was none, holding the key's lock ({@link #PG_KEY_LOCKED}), so it is larger than any the key had.
     */
    static String locking(String table, String nextToken) {
        String claimable = "(old.state = '" + StoredRow.ABSENT + "'"
                + " OR (old.state = 'IN_PROGRESS' AND n.now_ms >= old.lease_until)"
                + " OR (old.state <> 'IN_PROGRESS' AND (n.now_ms >= old.expires_at"
                + " OR (CAST(? AS BIGINT) > 0 AND n.now_ms >= old.started_at + ?))))";
        // The clock is read once the row is locked (n scans old first), so a claim that waited on the row stamps
        // with the time it got it, and reports that time.
        String clock = "(" + Dialect.POSTGRESQL.clockMillis() + " + ?)";
        return "WITH old AS (SELECT " + StoredRow.COLUMNS + " FROM " + table + " WHERE key_hash = ? FOR UPDATE),"
                + " n AS (SELECT " + clock + " AS now_ms FROM (SELECT count(*) FROM old) AS locked), "
                + PG_KEY_LOCKED + ","
                + " ins AS (INSERT INTO " + table + " (key_hash, idem_key, state, payload_hash, owner, fencing_token,"
                + " started_at, lease_until) SELECT ?, ?, 'IN_PROGRESS', ?, ?, " + nextToken + ", n.now_ms,"
                + " n.now_ms + ? FROM n, key_locked"
                + " WHERE NOT EXISTS (SELECT 1 FROM old) ON CONFLICT (key_hash) DO NOTHING RETURNING fencing_token),"
                + " upd AS (UPDATE " + table + " AS r SET state = 'IN_PROGRESS', idem_key = ?, payload_hash = ?,"
                + " owner = ?, fencing_token = " + nextToken + ","
                + " started_at = CASE WHEN old.state = 'IN_PROGRESS' THEN old.started_at ELSE n.now_ms END,"
                + " lease_until = n.now_ms + ?, completed_at = NULL, expires_at = NULL, result = NULL"
                + " FROM old, n WHERE r.key_hash = ? AND " + claimable
                + " RETURNING r.fencing_token)"
                + " SELECT old.*, n.now_ms, (SELECT fencing_token FROM ins) AS inserted,"
                + " (SELECT fencing_token FROM upd) AS updated FROM n LEFT JOIN old ON TRUE";
    }
}
