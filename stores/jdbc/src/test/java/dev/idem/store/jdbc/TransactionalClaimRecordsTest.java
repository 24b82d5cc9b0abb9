package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the transactional mode's claim writes into the key's row, on PostgreSQL: the same record the plain claim
 * writes (the claimer's owner, payload hash and lease on a takeover or a supersede), stamped with the database's time
 * when each statement runs, never with the start of the transaction around it (which, joined, may be the
 * application's and as old as it likes).
 */
// "try": a joined Scope is held for its effect (the claim joins the open transaction), never referenced in the body
@SuppressWarnings("try")
class TransactionalClaimRecordsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);
    /** How long a transaction runs before its claim: far beyond a millisecond, so its start cannot pass for now. */
    private static final String AGE_THE_TRANSACTION = "SELECT pg_sleep(0.3)";

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    /** Added to the database's now by the store, so a test passes a lease or a window without waiting. */
    private final AtomicLong offset = new AtomicLong();
    private JdbcIdempotencyStore store;
    private String prefix;

    @BeforeEach
    void open() {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).serverTimeOffset(offset::get).build();
        prefix = "idem:tx-records:" + UUID.randomUUID() + ":";
    }

    @AfterEach
    void close() throws Exception {
        try {
            store.close();
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @Test
    void aTransactionalTakeoverRecordsTheNewOwnerPayloadHashAndLeaseButKeepsTheStart() {
        String key = prefix + "takeover";
        long abandoned = acquired(store.claim(new ClaimRequest(key, "hash-a", "a", LEASE, Duration.ZERO)))
                .fencingToken();
        IdempotencyRecord before = store.get(key).orElseThrow();
        offset.addAndGet(LEASE.toMillis() + 1_000);

        long token;
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            ClaimOutcome.Acquired taken = acquired(tx.claim(new ClaimRequest(key, "hash-b", "b", LEASE,
                    Duration.ZERO), Duration.ofSeconds(5)).orElseThrow());
            token = taken.fencingToken();
            assertTrue(token > abandoned, "a larger token: " + abandoned + " then " + token);
            assertEquals(before, taken.replaced(), "the takeover reports the record it replaced");
            tx.commit();
        }

        IdempotencyRecord record = store.get(key).orElseThrow();
        assertEquals(RecordState.IN_PROGRESS, record.state());
        assertEquals("b", record.owner(), "the new owner");
        assertEquals("hash-b", record.payloadHash(), "the new caller's payload hash, as the plain takeover stores");
        assertEquals(token, record.fencingToken());
        assertEquals(before.startedAt(), record.startedAt(), "a takeover continues the same execution's window");
        assertTrue(record.leaseUntil().isAfter(before.leaseUntil()), "a new lease: " + record.leaseUntil());
    }

    @Test
    void aTransactionalSupersedeRecordsTheNewPayloadHash() {
        String key = prefix + "supersede";
        Duration window = Duration.ofSeconds(10);
        long first = acquired(store.claim(new ClaimRequest(key, "hash-a", "a", LEASE, window))).fencingToken();
        assertTrue(store.complete(key, first, new byte[] {1}, TTL));
        offset.addAndGet(window.toMillis() + 1_000);

        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            ClaimOutcome.Acquired superseding = acquired(tx.claim(new ClaimRequest(key, "hash-b", "b", LEASE,
                    window), Duration.ofSeconds(5)).orElseThrow());
            assertTrue(tx.complete(key, superseding.fencingToken(), new byte[] {2}, TTL));
            tx.commit();
        }

        IdempotencyRecord record = store.get(key).orElseThrow();
        assertEquals(RecordState.COMPLETED, record.state());
        assertEquals("hash-b", record.payloadHash(), "the superseding caller's payload hash");
        assertEquals("b", record.owner());
    }

    @Test
    void aTransactionTheStoreBeganStampsWithEachStatementsTimeNotItsStart() throws Exception {
        String key = prefix + "begun";
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            execute(JdbcTransactions.connection(), AGE_THE_TRANSACTION);
            claimAndCompleteCheckingTheStamps(tx, key);
            tx.commit();
        }
        assertTheStoredStampsAreTheStatementsTime(key);
        assertALosingClaimReportsTheStatementsTime(key, null);
    }

    @Test
    void aJoinedApplicationTransactionStampsWithEachStatementsTimeNotItsStart() throws Exception {
        String key = prefix + "joined";
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            execute(c, AGE_THE_TRANSACTION); // the application's transaction began well before the call
            try (JdbcTransactions.Scope joined = JdbcTransactions.join(c)) {
                try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
                    claimAndCompleteCheckingTheStamps(tx, key);
                    tx.commit();
                }
            }
            c.commit();
        }
        assertTheStoredStampsAreTheStatementsTime(key);
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            execute(c, AGE_THE_TRANSACTION);
            assertALosingClaimReportsTheStatementsTime(key, c);
            c.rollback();
        }
    }

    /** Instants read between the claim and the completion: the bounds each stored instant must lie within. */
    private Instant claimedAfter;
    private Instant claimedBefore;
    private Instant completedAfter;
    private Instant completedBefore;

    private void claimAndCompleteCheckingTheStamps(TransactionalClaims.Transaction tx, String key) throws Exception {
        claimedAfter = serverClock();
        long token = acquired(tx.claim(new ClaimRequest(key, "h", "a", LEASE, Duration.ZERO), Duration.ofSeconds(5))
                .orElseThrow()).fencingToken();
        claimedBefore = serverClock();
        execute(JdbcTransactions.connection(), AGE_THE_TRANSACTION); // the method runs a while
        completedAfter = serverClock();
        assertTrue(tx.complete(key, token, new byte[] {7}, TTL));
        completedBefore = serverClock();
    }

    private void assertTheStoredStampsAreTheStatementsTime(String key) {
        IdempotencyRecord record = store.get(key).orElseThrow();
        assertWithin("startedAt", claimedAfter, claimedBefore, record.startedAt());
        assertWithin("leaseUntil - lease", claimedAfter, claimedBefore, record.leaseUntil().minus(LEASE));
        assertWithin("completedAt", completedAfter, completedBefore, record.completedAt());
        // the expiry is the completion plus the ttl and a jitter of at most a tenth of it
        assertWithin("expiresAt - ttl", completedAfter, completedBefore.plus(TTL.dividedBy(10)),
                record.expiresAt().minus(TTL));
    }

    /** A claim that loses inside an old transaction ({@code joined}, or one the store begins) reports now. */
    private void assertALosingClaimReportsTheStatementsTime(String key, Connection joined) throws Exception {
        try (JdbcTransactions.Scope scope = joined == null ? null : JdbcTransactions.join(joined);
             TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            if (joined == null) {
                execute(JdbcTransactions.connection(), AGE_THE_TRANSACTION);
            }
            Instant after = serverClock();
            ClaimOutcome lost = tx.claim(new ClaimRequest(key, "h", "b", LEASE, Duration.ZERO), Duration.ofSeconds(5))
                    .orElseThrow();
            Instant before = serverClock();
            assertInstanceOf(ClaimOutcome.Existing.class, lost);
            assertWithin("the losing claim's store time", after, before, lost.storeTime());
        }
    }

    /** The database's clock, read on a connection of its own (so outside any transaction of the test's). */
    private Instant serverClock() throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(
                "SELECT CAST(floor(date_part('epoch', clock_timestamp()) * 1000) AS BIGINT)");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Instant.ofEpochMilli(rs.getLong(1) + offset.get());
        }
    }

    /** {@code actual} between the two readings of the database's clock, to the millisecond the float read may lose. */
    private static void assertWithin(String what, Instant after, Instant before, Instant actual) {
        assertNotNull(actual, what);
        assertTrue(!actual.isBefore(after.minusMillis(1)) && !actual.isAfter(before.plusMillis(1)), what
                + " must be the database's time when its statement ran, between " + after + " and " + before + ": "
                + actual + " (" + Duration.between(actual, after).toMillis() + " ms before the earlier bound)");
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static ClaimOutcome.Acquired acquired(ClaimOutcome outcome) {
        return assertInstanceOf(ClaimOutcome.Acquired.class, outcome);
    }
}
