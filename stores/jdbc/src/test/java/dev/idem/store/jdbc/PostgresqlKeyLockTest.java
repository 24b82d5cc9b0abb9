package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * PostgreSQL computes an inserted row, its token included, before it looks for a conflicting row, so a claim that
 * inserts the key's row draws its token holding the key's lock, which the sweeper needs to delete the key's row: a
 * claim that drew first can then never insert below a token the key was given meanwhile. Each test holds the key's
 * lock from a connection of its own and looks at what a claim, a replay or a sweep does meanwhile.
 */
class PostgresqlKeyLockTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long WITHIN_SECONDS = 10;

    /** How a claim reaches the insert: the two plain statements, and the transactional mode's locking statement. */
    enum Path { READ_FIRST, INSERT_FIRST, LOCKING_THE_ROW }

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final ExecutorService caller = Executors.newSingleThreadExecutor();
    private JdbcIdempotencyStore store;
    private Connection holder;

    @BeforeEach
    void open() throws SQLException {
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
            if (store != null) {
                store.close();
            }
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    private JdbcIdempotencyStore store(ClaimPaths.Start start) {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).claimStart(start).build();
        return store;
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "hash", "owner-" + UUID.randomUUID(), LEASE, Duration.ZERO);
    }

    private static String key() {
        return "idem:pg:key-lock:" + UUID.randomUUID();
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClaimThatInsertsTheKeysRowDrawsItsTokenOnlyHoldingTheKeysLock(Path path) throws Exception {
        JdbcIdempotencyStore store = store(path == Path.INSERT_FIRST ? ClaimPaths.Start.INSERT_FIRST
                : ClaimPaths.Start.READ_FIRST);
        String key = key();
        long lock = PostgresqlClaimStatements.keyLock(KeyHashes.of(key));
        holdTheLock(lock);
        long drawnBefore = lastTokenDrawn();

        Future<ClaimOutcome> claim = caller.submit(() -> path == Path.LOCKING_THE_ROW
                ? inOneTransaction(c -> store.claimOn(c, request(key), true))
                : store.claim(request(key)));
        awaitWaitingFor(lock, claim);
        assertEquals(drawnBefore, lastTokenDrawn(), "a claim waiting for the key's lock must not have drawn a token");

        holder.commit();
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, claim.get(WITHIN_SECONDS, TimeUnit.SECONDS))
                .fencingToken();
        assertTrue(token > drawnBefore, "the token is drawn once the claim holds the lock: " + token);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aReplayReadingFirstTakesNoKeyLock() throws Exception {
        JdbcIdempotencyStore store = store(ClaimPaths.Start.READ_FIRST);
        String key = key();
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
        assertTrue(store.complete(key, token, new byte[] {1}, Duration.ofHours(1)));
        holdTheLock(PostgresqlClaimStatements.keyLock(KeyHashes.of(key)));

        Future<ClaimOutcome> replay = caller.submit(() -> store.claim(request(key)));

        assertEquals(token, assertInstanceOf(ClaimOutcome.Existing.class,
                replay.get(WITHIN_SECONDS, TimeUnit.SECONDS)).record().fencingToken());
    }

    @Test
    void theSweeperLeavesTheRowOfAKeyWhoseLockIsHeldForItsNextSweep() throws Exception {
        JdbcIdempotencyStore store = store(ClaimPaths.Start.READ_FIRST);
        String key = key();
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key))).fencingToken();
        assertTrue(store.release(key, token));
        holdTheLock(PostgresqlClaimStatements.keyLock(KeyHashes.of(key)));

        assertEquals(0, store.deleteExpiredBatch(), "a row whose key's lock is held is not deleted");
        assertTrue(rowExists(key));

        holder.commit();
        assertEquals(1, store.deleteExpiredBatch(), "the next sweep deletes it");
        assertFalse(rowExists(key));
    }

    private void holdTheLock(long lock) throws SQLException {
        try (PreparedStatement ps = holder.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
            ps.setLong(1, lock);
            ps.execute();
        }
    }

    /** Waits (bounded) until some backend waits for the advisory lock {@code lock}; fails if the claim ends first. */
    private void awaitWaitingFor(long lock, Future<?> claim) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WITHIN_SECONDS);
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                     + " AND NOT granted AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1")) {
            ps.setLong(1, lock >>> 32);
            ps.setLong(2, lock & 0xFFFF_FFFFL);
            while (System.nanoTime() - deadline < 0) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                if (claim.isDone()) {
                    fail("the claim ended without waiting for the key's lock: " + claim.get());
                }
                Thread.onSpinWait();
            }
        }
        fail("no claim waited for the key's lock within " + WITHIN_SECONDS + "s");
    }

    private long lastTokenDrawn() throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT last_value FROM " + Dialect.tokens(table));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private boolean rowExists(String key) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + table + " WHERE key_hash = ?")) {
            ps.setBytes(1, KeyHashes.of(key));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private <T> T inOneTransaction(SqlWork<T> work) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            T result = work.apply(c);
            c.commit();
            return result;
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T apply(Connection c) throws SQLException;
    }
}
