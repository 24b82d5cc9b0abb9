package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On PostgreSQL a claim outside the transactional mode reads the key's row before it writes: a claim that finds a
 * record it cannot take (a replay of a completed key, a caller of an execution in progress) takes no row lock and
 * writes nothing, so it neither waits on a transaction holding the row nor costs a commit. In the transactional mode
 * the claim still locks the row, so a concurrent caller waits on it there.
 *
 * <p>Each test holds the key's row locked ({@code FOR UPDATE}) from a connection of its own: a claim that took any
 * row lock would wait on it, and the claim is run with a deadline that fails the test instead.
 */
class PostgresqlReadFirstClaimTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Far longer than a plain read takes, even on a loaded machine; a claim waiting on the lock waits forever. */
    private static final long ANSWER_WITHIN_SECONDS = 10;

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final ExecutorService caller = Executors.newSingleThreadExecutor();
    private JdbcIdempotencyStore store;
    private Connection holder;

    /** The statement the store's claims start with (a new store's adaptive choice is to read first). */
    ClaimPaths.Start claimStart() {
        return ClaimPaths.Start.READ_FIRST;
    }

    @BeforeEach
    void open() throws SQLException {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).claimStart(claimStart()).build();
        holder = DriverManager.getConnection(url);
        holder.setAutoCommit(false);
    }

    @AfterEach
    void close() throws Exception {
        try {
            holder.rollback();
            holder.close();
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(30, TimeUnit.SECONDS), "the claim's thread ended");
            store.close();
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "hash", "owner-" + UUID.randomUUID(), LEASE, Duration.ZERO);
    }

    private static String key() {
        return "idem:pg:read-first:" + UUID.randomUUID();
    }

    /** Locks the key's row from the holder's open transaction, as a concurrent writer or transactional call would. */
    private void lockRow(String key) throws SQLException {
        try (PreparedStatement ps = holder.prepareStatement("SELECT state FROM " + table
                + " WHERE key_hash = ? FOR UPDATE")) {
            ps.setBytes(1, KeyHashes.of(key));
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "the key has a row to lock");
            }
        }
    }

    /** The transaction id that last locked or deleted the row's current version: 0 when none did. */
    private long xmax(String key) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT xmax::text::bigint FROM " + table
                     + " WHERE key_hash = ?")) {
            ps.setBytes(1, KeyHashes.of(key));
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    private ClaimOutcome claimWithinDeadline(ClaimRequest request) throws Exception {
        Future<ClaimOutcome> claim = caller.submit(() -> store.claim(request));
        return claim.get(ANSWER_WITHIN_SECONDS, TimeUnit.SECONDS); // a TimeoutException here: the claim waited
    }

    @Test
    @Timeout(60)
    void aReplayOfACompletedKeyAnswersWhileAnotherTransactionHoldsItsRow() throws Exception {
        String key = key();
        ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
        assertTrue(store.complete(key, first.fencingToken(), new byte[] {7}, Duration.ofHours(1)));
        lockRow(key);

        ClaimOutcome.Existing replay = assertInstanceOf(ClaimOutcome.Existing.class,
                claimWithinDeadline(request(key)));
        assertEquals(RecordState.COMPLETED, replay.record().state());
        assertEquals(first.fencingToken(), replay.record().fencingToken());
    }

    @Test
    @Timeout(60)
    void aCallerOfAnExecutionInProgressAnswersWhileAnotherTransactionHoldsItsRow() throws Exception {
        String key = key();
        ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
        lockRow(key);

        ClaimOutcome.Existing running = assertInstanceOf(ClaimOutcome.Existing.class,
                claimWithinDeadline(request(key)));
        assertEquals(RecordState.IN_PROGRESS, running.record().state());
        assertEquals(first.fencingToken(), running.record().fencingToken());
    }

    @Test
    void aReplayLeavesTheRowAsItWasNeitherLockedNorWritten() throws Exception {
        String key = key();
        ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
        assertTrue(store.complete(key, first.fencingToken(), new byte[] {7}, Duration.ofHours(1)));
        assertEquals(0, xmax(key), "the completed version was neither locked nor replaced yet");

        for (int i = 0; i < 3; i++) {
            assertInstanceOf(ClaimOutcome.Existing.class, store.claim(request(key)));
        }
        // A row lock (FOR UPDATE, or ON CONFLICT DO UPDATE that does not apply) stamps the version with the locker's
        // transaction id; an update replaces the version. Neither may happen on a replay.
        assertEquals(0, xmax(key), "a replay took no row lock and wrote nothing");
    }

    @Test
    @Timeout(60)
    void aClaimableRowIsStillTakenAfterTheTransactionHoldingItEnds() throws Exception {
        String key = key();
        ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
        assertTrue(store.release(key, first.fencingToken()));
        lockRow(key);

        Future<ClaimOutcome> claim = caller.submit(() -> store.claim(request(key)));
        awaitWaitingOnALock();
        holder.rollback();
        ClaimOutcome.Acquired second = assertInstanceOf(ClaimOutcome.Acquired.class,
                claim.get(30, TimeUnit.SECONDS));
        assertTrue(second.fencingToken() > first.fencingToken());
    }

    @Test
    @Timeout(60)
    void inTheTransactionalModeTheClaimStillWaitsOnTheRow() throws Exception {
        String key = key();
        ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key)));
        assertTrue(store.complete(key, first.fencingToken(), new byte[] {7}, Duration.ofHours(1)));
        lockRow(key);

        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            long started = System.nanoTime();
            Optional<ClaimOutcome> outcome = tx.claim(request(key), Duration.ofMillis(300));
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals(Optional.empty(), outcome, "the transactional claim gave up waiting on the row's lock");
            assertTrue(waitedMillis >= 300, "it waited its lock wait: " + waitedMillis + " ms");
        }
        holder.rollback();
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            ClaimOutcome.Existing replay = assertInstanceOf(ClaimOutcome.Existing.class,
                    tx.claim(request(key), Duration.ofSeconds(10)).orElseThrow());
            assertEquals(RecordState.COMPLETED, replay.record().state());
            tx.commit();
        }
    }

    /**
     * Inserts the key's row from the holder's open transaction, as a concurrent first claim whose statement has not
     * committed yet would: a claim that reads the key as absent meanwhile inserts too, and waits on the primary key.
     *
     * @return the fencing token of the inserted row
     */
    private long insertRowUncommitted(String key) throws SQLException {
        try (PreparedStatement ps = holder.prepareStatement("INSERT INTO " + table + " (key_hash, idem_key, state,"
                + " payload_hash, owner, fencing_token, started_at, lease_until) VALUES (?, ?, 'IN_PROGRESS', 'hash',"
                + " 'holder', nextval('" + Dialect.tokens(table) + "'), 0, 9223372036854775000)"
                + " RETURNING fencing_token")) {
            ps.setBytes(1, KeyHashes.of(key));
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    @Test
    @Timeout(60)
    void aFirstClaimThatLosesTheInsertToAConcurrentFirstClaimReadsAgainAndFindsItsRecord() throws Exception {
        String key = key();
        long holders = insertRowUncommitted(key);

        // The claim reads the key as absent (the holder's row is not committed), inserts, and waits on the primary
        // key until the holder's transaction ends; after the holder's commit its insert does nothing (ON CONFLICT),
        // and it reads again.
        Future<ClaimOutcome> claim = caller.submit(() -> store.claim(request(key)));
        awaitWaitingOnALock();
        holder.commit();
        ClaimOutcome.Existing running = assertInstanceOf(ClaimOutcome.Existing.class,
                claim.get(30, TimeUnit.SECONDS));
        assertEquals(RecordState.IN_PROGRESS, running.record().state());
        assertEquals("holder", running.record().owner());
        assertEquals(holders, running.record().fencingToken());
    }

    @Test
    @Timeout(60)
    void aFirstClaimThatWaitedOnAConcurrentFirstClaimThatRolledBackTakesTheKey() throws Exception {
        String key = key();
        long holders = insertRowUncommitted(key);

        Future<ClaimOutcome> claim = caller.submit(() -> store.claim(request(key)));
        awaitWaitingOnALock();
        holder.rollback();
        ClaimOutcome.Acquired acquired = assertInstanceOf(ClaimOutcome.Acquired.class,
                claim.get(30, TimeUnit.SECONDS));
        assertTrue(acquired.fencingToken() > holders);
    }

    /** Waits until a backend of this database waits on a lock of the table's row; fails after 30 seconds. */
    private void awaitWaitingOnALock() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE wait_event_type = 'Lock' AND query LIKE ?")) {
            ps.setString(1, "%" + table + "%");
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the claim did not wait on the row's lock within 30 s");
                }
                TimeUnit.MILLISECONDS.sleep(10); // polling an observable state, not hoping for an order
            }
        }
    }
}
