package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyInProgressException;
import dev.idem.OnInProgress;
import dev.idem.StoreTransaction;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
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
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transactional mode on PostgreSQL (SEMANTICS.md section 9, last paragraph): the claim, the method's writes and
 * the completion commit or roll back together; a concurrent caller of the key waits on its row and gets the one
 * result; an application's transaction is joined, and its rollback takes the claim with it.
 *
 * <p>Each engine has its own store and pool, as two processes would: nothing is shared between them but the database.
 */
// "try": a joined Scope is held for its effect (the engine joins the open transaction), never referenced in the body
@SuppressWarnings("try")
class TransactionalModeTest {
    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final String waiterName = "idem-tx-waiter-" + UUID.randomUUID();
    private final AtomicInteger runs = new AtomicInteger();
    private JdbcIdempotencyStore store;
    private JdbcIdempotencyStore waiterStore;
    private IdemEngine engine;
    private IdemEngine waiterEngine;
    private SideEffectTable side;

    @BeforeEach
    void open() throws SQLException {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).build();
        waiterStore = JdbcIdempotencyStore.builder(TestPostgres.tagged(url, waiterName)).table(table).build();
        engine = engine(store);
        waiterEngine = engine(waiterStore);
        side = new SideEffectTable(url);
    }

    @AfterEach
    void close() throws Exception {
        try {
            engine.close();
            waiterEngine.close();
            store.close();
            waiterStore.close();
        } finally {
            side.close();
            JdbcStoreTck.dropTable(url, table);
        }
    }

    private static IdemEngine engine(JdbcIdempotencyStore store) {
        return IdemEngine.create(IdemSettings.custom().namespace("tx").store("pg", store).defaultStore("pg").build());
    }

    private static IdempotencyPolicy policy(StoreTransaction mode) {
        return IdempotencyPolicy.custom().operation("Orders#place").scope("tx:orders").storeTransaction(mode).build();
    }

    /** The method's side effect: one row, written through the transaction that holds the claim. */
    private String place(String order, AtomicReference<String> key) throws SQLException {
        runs.incrementAndGet();
        key.set(IdempotencyContext.current().orElseThrow().key());
        try (PreparedStatement ps = JdbcTransactions.connection().prepareStatement("INSERT INTO " + side.name
                + " (order_id, note) VALUES (?, 'placed')")) {
            ps.setString(1, order);
            ps.executeUpdate();
        }
        return "placed " + order;
    }

    /** The transactional claim reports the database's time (with the store's test offset) as the plain one does. */
    @Test
    void aTransactionalClaimReportsTheDatabasesTime() throws Exception {
        long hour = Duration.ofHours(1).toMillis();
        try (JdbcIdempotencyStore shifted = JdbcIdempotencyStore.builder(url).table(table).serverTimeOffset(() -> hour)
                .build()) {
            ClaimRequest request = new ClaimRequest("tx:time", "hash", "a", Duration.ofSeconds(30), Duration.ZERO);
            try (TransactionalClaims.Transaction tx = shifted.transactionalClaims().joinOrBegin()) {
                long token = assertInstanceOf(ClaimOutcome.Acquired.class, tx.claim(request, Duration.ZERO)
                        .orElseThrow()).fencingToken();
                assertTrue(tx.complete("tx:time", token, new byte[] {1}, Duration.ofMinutes(5)));
                tx.commit();
            }
            long before = databaseMillis() + hour; // before the claim's statement
            try (TransactionalClaims.Transaction tx = shifted.transactionalClaims().joinOrBegin()) {
                ClaimOutcome lost = tx.claim(request, Duration.ZERO).orElseThrow();
                long after = databaseMillis() + hour;
                assertInstanceOf(ClaimOutcome.Existing.class, lost);
                Instant storeTime = lost.storeTime();
                assertTrue(storeTime != null && storeTime.toEpochMilli() >= before - 1
                        && storeTime.toEpochMilli() <= after + 1, "the database's now plus the offset, between "
                        + before + " and " + after + ": " + storeTime);
            }
        }
    }

    private long databaseMillis() throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(
                "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void theWriteAndTheCompletionCommitTogether() throws Exception {
        IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.REQUIRED), String.class);
        AtomicReference<String> key = new AtomicReference<>();

        assertEquals("placed o-1", op.call(() -> place("o-1", key), "o-1"));

        assertEquals(1, rows("o-1"));
        IdempotencyRecord record = store.get(key.get()).orElseThrow();
        assertEquals(RecordState.COMPLETED, record.state());
        assertEquals("placed o-1", waiterEngine.operation(policy(StoreTransaction.REQUIRED), String.class)
                .call(() -> place("o-1", key), "o-1"), "another engine replays the committed result");
        assertEquals(1, runs.get());
        assertEquals(1, rows("o-1"));
    }

    /**
     * The reproduction: a method that runs longer than its ttl inside the transaction commits a record whose
     * ttl counts from its completion, so a duplicate through another engine right after replays it (with records
     * stamped at the transaction's start it was already expired, and the method ran again).
     */
    @Test
    @Timeout(60)
    void aMethodRunningLongerThanItsTtlCommitsARecordThatCountsFromItsCompletion() throws Exception {
        IdempotencyPolicy shortLived = IdempotencyPolicy.from(policy(StoreTransaction.REQUIRED)).ttl("2s").build();
        AtomicReference<String> key = new AtomicReference<>();
        IdempotentOperation<String> other = waiterEngine.operation(shortLived, String.class);
        assertEquals("placed o-12", engine.operation(shortLived, String.class).call(() -> {
            String placed = place("o-12", key);
            try (PreparedStatement ps = JdbcTransactions.connection().prepareStatement("SELECT pg_sleep(2.5)")) {
                ps.execute(); // the method runs longer than its ttl, inside the transaction
            }
            return placed;
        }, "o-12"));
        assertEquals("placed o-12", other.call(() -> place("o-12", key), "o-12"));
        assertEquals(1, runs.get(), "the duplicate replayed the committed record: the method ran once");
        assertEquals(1, rows("o-12"));
    }

    @Test
    void aFailureRollsBackTheWriteAndTheClaimSoTheRetryRuns() throws Exception {
        IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.REQUIRED), String.class);
        AtomicReference<String> key = new AtomicReference<>();

        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> op.call(() -> {
            place("o-2", key);
            throw new IllegalStateException("payment declined");
        }, "o-2"));
        assertEquals("payment declined", thrown.getMessage(), "the method's exception, unchanged");
        assertEquals(0, rows("o-2"), "the write rolled back");
        assertEquals(Optional.empty(), store.get(key.get()), "and the claim with it: nothing recorded");

        assertEquals("placed o-2", op.call(() -> place("o-2", key), "o-2"));
        assertEquals(2, runs.get(), "the retry ran");
        assertEquals(1, rows("o-2"));
    }

    /** A call through {@link #engine} that has written its side effect and holds its transaction open until told. */
    private final class OpenCall implements AutoCloseable {
        private final CountDownLatch finish = new CountDownLatch(1);
        private final ExecutorService thread = Executors.newSingleThreadExecutor();
        private final Future<String> result;

        OpenCall(String order, AtomicReference<String> key) throws InterruptedException {
            IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.REQUIRED), String.class);
            CountDownLatch written = new CountDownLatch(1);
            result = thread.submit(() -> op.call(() -> {
                String placed = place(order, key);
                written.countDown();
                assertTrue(finish.await(30, TimeUnit.SECONDS));
                return placed;
            }, order));
            assertTrue(written.await(30, TimeUnit.SECONDS), "the call wrote its side effect");
        }

        /** Lets the call return, so its transaction commits; returns what it returned. */
        String commit() throws Exception {
            finish.countDown();
            return result.get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            finish.countDown();
            thread.shutdownNow();
        }
    }

    @Test
    @Timeout(60)
    void aConcurrentCallerWaitsOnTheRowAndGetsTheOneResult() throws Exception {
        IdempotentOperation<String> other = waiterEngine.operation(
                IdempotencyPolicy.from(policy(StoreTransaction.REQUIRED)).waitTimeout("30s").build(), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try (OpenCall first = new OpenCall("o-3", key)) {
            Future<String> second = waiter.submit(() -> other.call(() -> place("o-3", key), "o-3"));

            awaitWaitingOnALock(waiterName);
            assertFalse(second.isDone(), "the second caller waits on the key's row");
            assertEquals(0, rows("o-3"), "nothing is visible before the commit");

            assertEquals("placed o-3", first.commit());
            assertEquals("placed o-3", second.get(30, TimeUnit.SECONDS), "the waiter gets the one result");
            assertEquals(1, runs.get(), "the method ran once");
            assertEquals(1, rows("o-3"));
        } finally {
            waiter.shutdownNow();
        }
    }

    @Test
    @Timeout(60)
    void aWaiterGivesUpAfterItsWaitTimeoutAndTheRetryReplays() throws Exception {
        IdempotentOperation<String> impatient = waiterEngine.operation(
                IdempotencyPolicy.from(policy(StoreTransaction.REQUIRED)).waitTimeout("200ms").build(), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        try (OpenCall first = new OpenCall("o-4", key)) {
            IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
                    () -> impatient.call(() -> place("o-4", key), "o-4"));
            assertTrue(e.getMessage().contains("waitTimeout = PT0.2S"), e.getMessage());
            assertEquals("placed o-4", first.commit());
        }
        assertEquals("placed o-4", impatient.call(() -> place("o-4", key), "o-4"));
        assertEquals(1, runs.get());
        assertEquals(1, rows("o-4"));
    }

    /**
     * A caller without {@code storeTransaction} meets the key's row held by an open transaction (its uncommitted
     * insert): it waits no longer than its own {@code waitTimeout}, then answers as for an execution in progress
     * elsewhere, and replays once the transaction commits.
     */
    @Test
    @Timeout(60)
    void aPlainCallerOfAKeyAnOpenTransactionHoldsWaitsOnlyItsWaitTimeout() throws Exception {
        IdempotentOperation<String> plain = waiterEngine.operation(
                IdempotencyPolicy.from(policy(StoreTransaction.NONE)).waitTimeout("300ms").build(), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        try (OpenCall first = new OpenCall("o-10", key)) {
            IdempotencyInProgressException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> assertThrows(IdempotencyInProgressException.class,
                            () -> plain.call(() -> place("o-10", key), "o-10")),
                    "a plain claim must not wait on the open transaction past its waitTimeout");
            assertTrue(e.getMessage().contains("waitTimeout = PT0.3S"), e.getMessage());
            assertEquals("placed o-10", first.commit());
        }
        assertEquals("placed o-10", plain.call(() -> place("o-10", key), "o-10"), "the committed result, replayed");
        assertEquals(1, runs.get());
    }

    @Test
    @Timeout(60)
    void aPlainCallerWithOnInProgressThrowDoesNotWaitOnAnOpenTransaction() throws Exception {
        IdempotentOperation<String> impatient = waiterEngine.operation(IdempotencyPolicy
                .from(policy(StoreTransaction.NONE)).onInProgress(OnInProgress.THROW).build(), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        try (OpenCall first = new OpenCall("o-11", key)) {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(IdempotencyInProgressException.class,
                    () -> impatient.call(() -> place("o-11", key), "o-11")), "onInProgress = THROW: no wait");
            assertEquals("placed o-11", first.commit());
        }
        assertEquals(1, runs.get());
    }

    @Test
    void anApplicationTransactionIsJoinedAndItsRollbackTakesTheClaimWithIt() throws Exception {
        IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.MANDATORY), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            try (JdbcTransactions.Scope joined = JdbcTransactions.join(c)) {
                assertEquals("placed o-5", op.call(() -> {
                    assertTrue(JdbcTransactions.connection() == c, "the method writes through the application's");
                    return place("o-5", key);
                }, "o-5"));
                insert(c, "o-5", "audit");
            }
            assertEquals(0, rows("o-5"), "nothing is committed before the application commits");
            assertEquals(Optional.empty(), store.get(key.get()));
            c.rollback();
        }
        assertEquals(0, rows("o-5"), "the application's rollback took the write");
        assertEquals(Optional.empty(), store.get(key.get()), "and the claim and its completion");

        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            try (JdbcTransactions.Scope joined = JdbcTransactions.join(c)) {
                assertEquals("placed o-5", op.call(() -> place("o-5", key), "o-5"));
            }
            c.commit();
        }
        assertEquals(2, runs.get(), "the call ran again after the rollback");
        assertEquals(1, rows("o-5"));
        assertEquals(RecordState.COMPLETED, store.get(key.get()).orElseThrow().state());
    }

    @Test
    void aReplayInsideTheApplicationTransactionIsForgottenWithItsRollback() throws Exception {
        IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.REQUIRED), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            try (JdbcTransactions.Scope joined = JdbcTransactions.join(c)) {
                assertEquals("placed o-9", op.call(() -> place("o-9", key), "o-9"));
                assertEquals("placed o-9", op.call(() -> place("o-9", key), "o-9"), "replayed in the transaction");
            }
            c.rollback();
        }
        assertEquals(1, runs.get());
        assertEquals("placed o-9", op.call(() -> place("o-9", key), "o-9"));
        assertEquals(2, runs.get(), "the rolled-back result was not kept in this JVM: the call ran again");
        assertEquals(1, rows("o-9"));
    }

    @Test
    void aJoinedCallThatThrowsRollsBackItsOwnPartOnly() throws Exception {
        IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.REQUIRED), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            insert(c, "o-6", "before");
            try (JdbcTransactions.Scope joined = JdbcTransactions.join(c)) {
                SQLException failed = assertThrows(SQLException.class, () -> op.call(() -> {
                    place("o-6", key);
                    c.createStatement().execute("SELECT 1/0"); // aborts the transaction up to the call's savepoint
                    return "unreachable";
                }, "o-6"));
                assertTrue(failed.getMessage().contains("division by zero"), "the method's own exception");
            }
            insert(c, "o-6", "after"); // the application's transaction is still usable
            c.commit();
        }
        assertEquals(2, rows("o-6"), "the application's own writes committed; the call's did not");
        assertEquals(Optional.empty(), store.get(key.get()), "nor its claim");
    }

    @Test
    void mandatoryWithoutAnApplicationTransactionIsRefusedAndDoesNotRun() {
        IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.MANDATORY), String.class);
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> op.call(() -> place("o-7", new AtomicReference<>()), "o-7"));
        assertTrue(e.getMessage().contains("Orders#place: @Idempotent(storeTransaction = MANDATORY)"), e.getMessage());
        assertTrue(e.getMessage().contains("JdbcTransactions.join"), e.getMessage());
        assertEquals(0, runs.get());
    }

    @Test
    void theMethodCannotEndTheTransactionIdemBegan() throws Exception {
        IdempotentOperation<String> op = engine.operation(policy(StoreTransaction.REQUIRED), String.class);
        AtomicReference<String> key = new AtomicReference<>();
        SQLException refused = assertThrows(SQLException.class, () -> op.call(() -> {
            String placed = place("o-8", key);
            JdbcTransactions.connection().commit(); // would commit the claim without its completion
            return placed;
        }, "o-8"));
        assertTrue(refused.getMessage().contains("commit() is refused"), refused.getMessage());
        assertEquals(0, rows("o-8"));
        assertEquals(Optional.empty(), store.get(key.get()));
        assertThrows(IllegalStateException.class, JdbcTransactions::connection, "unbound after the call");
    }

    /** Waits until a connection of {@code applicationName} waits on a lock; fails saying so after 30 seconds. */
    private void awaitWaitingOnALock(String applicationName) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE application_name = ? AND wait_event_type = 'Lock'")) {
            ps.setString(1, applicationName);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the second caller did not wait on a lock within 30 s");
                }
                TimeUnit.MILLISECONDS.sleep(10); // polling an observable state, not hoping for an order
            }
        }
    }

    private void insert(Connection c, String order, String note) throws SQLException {
        String sql = "INSERT INTO " + side.name + " (order_id, note) VALUES (?, ?)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, order);
            ps.setString(2, note);
            ps.executeUpdate();
        }
    }

    private int rows(String order) throws SQLException {
        return side.rows(order);
    }
}
