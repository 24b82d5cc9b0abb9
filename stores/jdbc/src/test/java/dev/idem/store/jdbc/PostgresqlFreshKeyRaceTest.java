package dev.idem.store.jdbc;

import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plain callers with {@code onInProgress = THROW} racing for one new key on PostgreSQL, each with its own payload,
 * claiming with the lock wait the engine gives them ({@link OperationPlan#MIN_LOCK_WAIT}): the losers wait on the
 * winner's one-statement commit, so each is answered with the winner's record (a payload conflict the engine can
 * tell), never with the stand-in for a transaction's hold ({@link PostgresqlClaims#HELD_BY_A_TRANSACTION}, the
 * loser's own payload hash). The losers take the key's lock in turn, so on a loaded machine a loser's lock wait can
 * pass behind the others: it then reads the winner's committed record instead, which the second test forces by
 * holding the key's lock as a loser ahead in the queue would.
 */
class PostgresqlFreshKeyRaceTest {
    private static final int CALLERS = 8;
    private static final int KEYS = 30;
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final String prefix = "idem:fresh-race:" + UUID.randomUUID() + ":";
    private final ExecutorService threads = Executors.newFixedThreadPool(CALLERS);
    private JdbcIdempotencyStore store;

    @AfterEach
    void close() throws Exception {
        try {
            threads.shutdownNow();
            assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS));
            if (store != null) {
                store.close();
            }
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ClaimPaths.Start.class, names = {"READ_FIRST", "INSERT_FIRST"})
    @Timeout(120)
    void losersOfARaceForANewKeySeeTheWinnersRecord(ClaimPaths.Start start) throws Exception {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).claimStart(start)
                .maximumPoolSize(CALLERS).build();
        List<String> standIns = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            String key = prefix + start + ":" + k;
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ClaimOutcome>> claims = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++) {
                ClaimRequest request = new ClaimRequest(key, "payload-" + c, "owner-" + c, LEASE, Duration.ZERO,
                        OperationPlan.MIN_LOCK_WAIT);
                claims.add(threads.submit(() -> {
                    assertTrue(go.await(30, TimeUnit.SECONDS));
                    return store.claim(request);
                }));
            }
            go.countDown();
            String winner = null;
            List<IdempotencyRecord> seen = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++) {
                ClaimOutcome outcome = claims.get(c).get(60, TimeUnit.SECONDS);
                if (outcome instanceof ClaimOutcome.Acquired) {
                    assertEquals(null, winner, "one winner of key " + key);
                    winner = "payload-" + c;
                } else {
                    seen.add(((ClaimOutcome.Existing) outcome).record());
                }
            }
            assertNotEquals(null, winner, "a winner of key " + key);
            for (IdempotencyRecord record : seen) {
                if (PostgresqlClaims.HELD_BY_A_TRANSACTION.equals(record.owner())) {
                    standIns.add(key + " (" + record.payloadHash() + ")");
                } else {
                    assertEquals(winner, record.payloadHash(), "the winner's record");
                }
            }
        }
        assertEquals(0, standIns.size(), standIns.size() + " losers answered with a stand-in instead of the"
                + " winner's record, such as " + standIns.subList(0, Math.min(5, standIns.size())));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLoserWhoseLockWaitPassesBehindAnotherLoserSeesTheWinnersCommittedRecord() throws Exception {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true)
                .claimStart(ClaimPaths.Start.INSERT_FIRST).build();
        String key = prefix + "queued";
        long winner = assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key, "payload-winner", "winner", LEASE, Duration.ZERO))).fencingToken();

        try (Connection aheadInTheQueue = DriverManager.getConnection(url)) {
            aheadInTheQueue.setAutoCommit(false);
            try (PreparedStatement ps = aheadInTheQueue.prepareStatement("SELECT pg_advisory_xact_lock("
                    + Dialect.KEY_LOCK + ") FROM " + table + " WHERE idem_key = ?")) {
                ps.setString(1, key);
                assertTrue(ps.executeQuery().next(), "the key's lock is held");
            }

            ClaimOutcome loser = store.claim(new ClaimRequest(key, "payload-loser", "loser", LEASE, Duration.ZERO,
                    OperationPlan.MIN_LOCK_WAIT));

            IdempotencyRecord seen = assertInstanceOf(ClaimOutcome.Existing.class, loser).record();
            assertEquals("winner", seen.owner(), "the winner's record, not a stand-in");
            assertEquals("payload-winner", seen.payloadHash());
            assertEquals(winner, seen.fencingToken());
            aheadInTheQueue.rollback();
        }
    }
}
