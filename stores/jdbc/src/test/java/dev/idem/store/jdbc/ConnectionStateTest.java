package dev.idem.store.jdbc;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The jdbc store never changes the state of a connection it does not own, and gives back the connections it borrows
 * as it got them, on PostgreSQL through {@link StateWatchingDataSource} (real connections, watched):
 * <ul>
 *   <li>a pool whose connections start in manual-commit mode gets each back in it, after every operation and after
 *       a transaction the store began;</li>
 *   <li>a transaction-aware data source that hands out the application's transaction (Spring's, inside a
 *       {@code @Transactional} method) is refused, and that transaction is neither committed nor changed;</li>
 *   <li>an application's transaction the store joins keeps its state: only the call's savepoint is set and
 *       settled.</li>
 * </ul>
 */
// "try": a joined Scope is held for its effect (the claim joins the open transaction), never referenced in the body
@SuppressWarnings("try")
class ConnectionStateTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final String prefix = "idem:connection-state:" + UUID.randomUUID() + ":";
    private JdbcIdempotencyStore reader;
    private SideEffectTable side;

    @BeforeEach
    void open() throws SQLException {
        reader = JdbcIdempotencyStore.builder(url).table(table).createTable(true).build();
        side = new SideEffectTable(url);
    }

    @AfterEach
    void close() throws Exception {
        try {
            reader.close();
            side.close();
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @Test
    void aPoolOfManualCommitConnectionsGetsEachBackInManualCommitWithTheStoresWritesCommitted() {
        StateWatchingDataSource pool = new StateWatchingDataSource(url, false);
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).table(table).manualCommitConnections()
                .build()) {
            String done = prefix + "done";
            long token = acquired(store.claim(request(done))).fencingToken();
            assertTrue(store.renew(done, token, LEASE));
            assertTrue(store.complete(done, token, new byte[] {1}, TTL));
            assertInstanceOf(ClaimOutcome.Existing.class, store.claim(request(done)));
            assertEquals(RecordState.COMPLETED, store.get(done).orElseThrow().state());
            String released = prefix + "released";
            assertTrue(store.release(released, acquired(store.claim(request(released))).fencingToken()));
            store.delete(done);

            String transactional = prefix + "transactional";
            try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
                long held = acquired(tx.claim(request(transactional), Duration.ofSeconds(5)).orElseThrow())
                        .fencingToken();
                assertTrue(tx.complete(transactional, held, new byte[] {2}, TTL));
                tx.commit();
            }

            assertEquals(List.of(), pool.returnedAltered(), "every connection goes back as it came");
            assertEquals(RecordState.COMPLETED, reader.get(transactional).orElseThrow().state(),
                    "the transaction the store began committed");
            assertTrue(reader.get(done).isEmpty(), "the store's own writes committed, the delete last");
        }
    }

    @Test
    void aPoolOfManualCommitConnectionsNotDeclaredSoIsRefusedChangingNothing() {
        StateWatchingDataSource pool = new StateWatchingDataSource(url, false);
        IdempotencyStoreException refused = assertThrows(IdempotencyStoreException.class,
                () -> JdbcIdempotencyStore.builder(pool).table(table).build());
        assertTrue(refused.getMessage().contains("manualCommitConnections()"), refused.getMessage());
        assertEquals(List.of(), pool.returnedAltered(), "the connection went back as it came");
    }

    @Test
    void aStoreBuiltInsideTheApplicationsTransactionIsRefusedAndTheTransactionIsLeftAlone() throws Exception {
        StateWatchingDataSource transactionAware = new StateWatchingDataSource(url, true);
        try (Connection application = DriverManager.getConnection(url)) {
            application.setAutoCommit(false);
            side.insert(application, "o-0");
            transactionAware.bind(application); // the store's first connection is the application's transaction
            try {
                IdempotencyStoreException refused = assertThrows(IdempotencyStoreException.class,
                        () -> JdbcIdempotencyStore.builder(transactionAware).table(table).build());
                assertTrue(refused.getMessage().contains("auto-commit off"), refused.getMessage());
            } finally {
                transactionAware.unbind();
            }
            assertEquals(List.of(), transactionAware.applicationChanges(), "the application's connection untouched");
            assertEquals(0, side.rows("o-0"), "and its transaction not committed");
            application.rollback();
        }
        try (JdbcIdempotencyStore later = JdbcIdempotencyStore.builder(transactionAware).table(table).build()) {
            // once built outside it, the store still refuses the application's transaction
            Connection application = DriverManager.getConnection(url);
            try (application) {
                application.setAutoCommit(false);
                transactionAware.bind(application);
                assertThrows(IdempotencyStoreException.class, () -> later.claim(request(prefix + "inside")));
            } finally {
                transactionAware.unbind();
            }
            assertEquals(List.of(), transactionAware.applicationChanges());
        }
    }

    @Test
    void insideTheApplicationsTransactionATransactionAwareDataSourceIsRefusedAndTheTransactionIsLeftAlone()
            throws Exception {
        StateWatchingDataSource transactionAware = new StateWatchingDataSource(url, true);
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(transactionAware).table(table).build();
             Connection application = DriverManager.getConnection(url)) {
            application.setAutoCommit(false);
            side.insert(application, "o-1");
            transactionAware.bind(application); // as a @Transactional method's data source hands out its own
            try {
                IdempotencyStoreException plain = assertThrows(IdempotencyStoreException.class,
                        () -> store.claim(request(prefix + "plain")));
                assertTrue(plain.getMessage().contains("claim of scope connection-state")
                        && plain.getMessage().contains("auto-commit off"), plain.getMessage());
                IdempotencyStoreException begun = assertThrows(IdempotencyStoreException.class,
                        () -> store.transactionalClaims().joinOrBegin());
                assertTrue(begun.getMessage().contains("JdbcTransactions.join"), begun.getMessage());
            } finally {
                transactionAware.unbind();
            }
            assertEquals(List.of(), transactionAware.applicationChanges(), "the application's connection untouched");
            assertEquals(0, side.rows("o-1"), "and its transaction not committed");
            application.rollback();
            assertEquals(0, side.rows("o-1"));

            acquired(store.claim(request(prefix + "outside"))); // outside the transaction, connections of its own
            assertEquals(List.of(), transactionAware.returnedAltered());
        }
    }

    @Test
    void aJoinedApplicationTransactionKeepsItsStateAndOnlyTheCallsSavepointIsSettled() throws Exception {
        StateWatchingDataSource transactionAware = new StateWatchingDataSource(url, true);
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(url).table(table).build();
             Connection raw = DriverManager.getConnection(url)) {
            raw.setAutoCommit(false);
            transactionAware.bind(raw);
            try {
                Connection application = transactionAware.getConnection(); // watched: every change is recorded
                side.insert(application, "o-2");
                String key = prefix + "joined";
                try (JdbcTransactions.Scope joined = JdbcTransactions.join(application)) {
                    try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
                        long token = acquired(tx.claim(request(key), Duration.ofSeconds(5)).orElseThrow())
                                .fencingToken();
                        assertTrue(tx.complete(key, token, new byte[] {3}, TTL));
                        tx.commit();
                    }
                    try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
                        acquired(tx.claim(request(prefix + "rolled-back"), Duration.ofSeconds(5)).orElseThrow());
                    } // closed without a commit: back to the call's savepoint only
                }
                assertEquals(List.of(), transactionAware.applicationChanges(),
                        "nothing but the calls' savepoints on the application's connection");
                assertEquals(0, side.rows("o-2"), "nothing committed before the application commits");
                raw.commit();
                assertEquals(1, side.rows("o-2"));
                assertEquals(RecordState.COMPLETED, reader.get(key).orElseThrow().state());
                assertTrue(reader.get(prefix + "rolled-back").isEmpty());
            } finally {
                transactionAware.unbind();
            }
        }
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "h", "owner", LEASE, Duration.ZERO);
    }

    private static ClaimOutcome.Acquired acquired(ClaimOutcome outcome) {
        return assertInstanceOf(ClaimOutcome.Acquired.class, outcome);
    }
}
