package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A plain claim (outside the transactional mode) of a key whose row an open transactional claim holds, on PostgreSQL,
 * by both of its first statements: it waits no longer than its {@link ClaimRequest#lockWait()}, then answers the key
 * in progress with the stand-in record of {@link ClaimOutcome.Existing}; once the transaction ends it reads what was
 * committed. The transaction is held open on the test's thread (no sleeping, no second thread of the test's own);
 * the plain claim runs on a connection of its own.
 */
class PlainClaimBesideATransactionTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);
    /** Bounds a claim that would otherwise wait for the transaction, which the test never ends while it waits. */
    private static final Duration HANG = Duration.ofSeconds(20);

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final String prefix = "idem:plain-beside-tx:" + UUID.randomUUID() + ":";
    private final AtomicLong offset = new AtomicLong();
    private JdbcIdempotencyStore store;

    private void open(ClaimPaths.Start start) {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).serverTimeOffset(offset::get)
                .claimStart(start).build();
    }

    @AfterEach
    void close() throws Exception {
        try {
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
    void aKeyAnOpenTransactionInsertedIsAnsweredInProgressWithinTheLockWait(ClaimPaths.Start start) {
        open(start);
        String key = prefix + "fresh";
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            long token = assertInstanceOf(ClaimOutcome.Acquired.class, tx.claim(request(key, "tx", null),
                    Duration.ofSeconds(5)).orElseThrow()).fencingToken();

            assertStandIn(key, claimBounded(request(key, "plain", Duration.ofMillis(200))));
            assertStandIn(key, claimBounded(request(key, "plain", Duration.ZERO)));

            assertTrue(tx.complete(key, token, new byte[] {1}, TTL));
            tx.commit();
        }
        ClaimOutcome.Existing committed = assertInstanceOf(ClaimOutcome.Existing.class,
                claimBounded(request(key, "plain", Duration.ofMillis(200))));
        assertEquals(RecordState.COMPLETED, committed.record().state(), "the committed record, once it ended");
        assertEquals("tx-owner", committed.record().owner());
    }

    @ParameterizedTest
    @EnumSource(value = ClaimPaths.Start.class, names = {"READ_FIRST", "INSERT_FIRST"})
    @Timeout(60)
    void aClaimableRowAnOpenTransactionTookOverIsAnsweredInProgressWithinTheLockWait(ClaimPaths.Start start) {
        open(start);
        String key = prefix + "abandoned";
        long abandoned = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request(key, "a", null)))
                .fencingToken();
        offset.addAndGet(LEASE.toMillis() + 1_000); // the lease passed: the committed row is claimable
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            assertInstanceOf(ClaimOutcome.Acquired.class, tx.claim(request(key, "tx", null), Duration.ofSeconds(5))
                    .orElseThrow());

            assertStandIn(key, claimBounded(request(key, "plain", Duration.ofMillis(200))));
        } // rolled back: the abandoned record is as it was, and claimable
        ClaimOutcome.Acquired taken = assertInstanceOf(ClaimOutcome.Acquired.class,
                claimBounded(request(key, "plain", Duration.ofMillis(200))), "the row, once the transaction ended");
        assertEquals(abandoned, taken.replaced().fencingToken());
    }

    private ClaimOutcome claimBounded(ClaimRequest request) {
        return assertTimeoutPreemptively(HANG, () -> store.claim(request),
                "a plain claim must not wait on the open transaction past its lockWait " + request.lockWait());
    }

    private static void assertStandIn(String key, ClaimOutcome outcome) {
        IdempotencyRecord record = assertInstanceOf(ClaimOutcome.Existing.class, outcome).record();
        assertEquals(RecordState.IN_PROGRESS, record.state());
        assertEquals(key, record.key());
        assertEquals("hash-plain", record.payloadHash(), "the caller's own: the holder's is not committed");
        assertEquals(PostgresqlClaims.HELD_BY_A_TRANSACTION, record.owner());
        assertEquals(0, record.fencingToken(), "no claim's token");
        assertEquals(record.startedAt(), ((ClaimOutcome.Existing) outcome).storeTime());
    }

    private static ClaimRequest request(String key, String who, Duration lockWait) {
        return new ClaimRequest(key, "hash-" + who, who + "-owner", LEASE, Duration.ZERO, lockWait);
    }
}
