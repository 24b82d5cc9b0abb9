package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.TransactionalClaims;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A plain claim on PostgreSQL that waited on a transactional claim of its key (the key's lock, or the row's lock)
 * stamps its lease from when it got the lock, not from when its statement began: else a claim that waited longer than
 * its lease would write a lease already past, and the next caller would take the key over at once (two executions).
 * Each test holds a transactional claim of the key open, sees (in {@code pg_stat_activity}) a plain claim with a long
 * lock wait waiting on it, holds the transaction a further {@link #HELD} (so the gap is many milliseconds, not a
 * rounding), reads the server's {@code clock_timestamp()} and rolls the transaction back; the plain claim's lease
 * must end at least its lease after that reading. Both claim paths, and the insert and the takeover.
 */
class PostgresqlClaimClockTest {
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration LOCK_WAIT = Duration.ofSeconds(30);
    /** How long the transaction is held after the plain claim was seen waiting on it: the gap the test measures. */
    private static final double HELD_SECONDS = 0.5;

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final String prefix = "idem:claim-clock:" + UUID.randomUUID() + ":";
    private final AtomicLong offset = new AtomicLong();
    private final ExecutorService plain = Executors.newSingleThreadExecutor();
    private JdbcIdempotencyStore store;

    private void open(ClaimPaths.Start start) {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).serverTimeOffset(offset::get)
                .claimStart(start).build();
    }

    @AfterEach
    void close() throws Exception {
        try {
            plain.shutdownNow();
            assertTrue(plain.awaitTermination(30, TimeUnit.SECONDS));
            if (store != null) {
                store.close();
            }
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ClaimPaths.Start.class, names = {"READ_FIRST", "INSERT_FIRST"})
    @Timeout(60)
    void anInsertThatWaitedOnTheKeysLockLeasesFromWhenItGotIt(ClaimPaths.Start start) throws Exception {
        open(start);
        String key = prefix + "fresh";
        ClaimOutcome outcome = claimBesideATransactionThatRollsBack(key);
        assertInstanceOf(ClaimOutcome.Acquired.class, outcome, "the key is new once the transaction rolled back");
    }

    @ParameterizedTest
    @EnumSource(value = ClaimPaths.Start.class, names = {"READ_FIRST", "INSERT_FIRST"})
    @Timeout(60)
    void aTakeoverThatWaitedOnTheRowsLockLeasesFromWhenItGotIt(ClaimPaths.Start start) throws Exception {
        open(start);
        String key = prefix + "abandoned";
        long abandoned = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key, "a", null)))
                .fencingToken();
        offset.addAndGet(LEASE.toMillis() + 1_000); // the lease passed: the committed row is claimable
        ClaimOutcome outcome = claimBesideATransactionThatRollsBack(key);
        ClaimOutcome.Acquired taken = assertInstanceOf(ClaimOutcome.Acquired.class, outcome);
        assertEquals(abandoned, taken.replaced().fencingToken(), "a takeover of the abandoned record");
    }

    /**
     * Claims {@code key} in a transaction, runs a plain claim of it on another thread, and once that claim waits on
     * the transaction, holds it {@link #HELD_SECONDS} more, reads the server's clock and rolls back. Checks the plain
     * claim's stored lease against that reading and returns its outcome.
     */
    private ClaimOutcome claimBesideATransactionThatRollsBack(String key) throws Exception {
        long releasedAt;
        Future<ClaimOutcome> claim;
        try (Connection watch = DriverManager.getConnection(url)) {
            try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
                assertInstanceOf(ClaimOutcome.Acquired.class, tx.claim(request(key, "tx", null),
                        Duration.ofSeconds(5)).orElseThrow());
                claim = plain.submit(() -> store.claim(request(key, "plain", LOCK_WAIT)));
                awaitAClaimWaitingOnALock(watch);
                try (Statement s = watch.createStatement()) {
                    s.execute("SELECT pg_sleep(" + HELD_SECONDS + ")");
                }
                releasedAt = serverClockMillis(watch) + offset.get();
            } // rolled back: the plain claim gets the lock now
            ClaimOutcome outcome = claim.get(30, TimeUnit.SECONDS);
            long leaseUntil = storedLeaseUntil(watch, key);
            assertTrue(leaseUntil >= releasedAt + LEASE.toMillis(), "the plain claim's lease ends at " + leaseUntil
                    + ", " + (releasedAt + LEASE.toMillis() - leaseUntil) + " ms before a lease from when the"
                    + " transaction released the key (" + releasedAt + ")");
            return outcome;
        }
    }

    /** Waits until a backend other than {@code watch}'s waits on a lock in a statement naming the test's table. */
    private void awaitAClaimWaitingOnALock(Connection watch) throws SQLException {
        try (PreparedStatement ps = watch.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                + " WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND position(? IN query) > 0")) {
            ps.setString(1, table);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.onSpinWait(); // bounded by the test's timeout
            }
        }
    }

    private static long serverClockMillis(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + Dialect.POSTGRESQL.clockMillis())) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long storedLeaseUntil(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT lease_until, owner FROM " + table
                + " WHERE idem_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "the key's row");
                assertEquals("plain-owner", rs.getString(2));
                return rs.getLong(1);
            }
        }
    }

    private static ClaimRequest request(String key, String who, Duration lockWait) {
        return new ClaimRequest(key, "hash-" + who, who + "-owner", LEASE, Duration.ZERO, lockWait);
    }
}
