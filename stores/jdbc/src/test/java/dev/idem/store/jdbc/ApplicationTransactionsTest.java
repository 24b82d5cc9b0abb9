package dev.idem.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyConfigurationException;
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
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transactional mode over an application's transaction manager ({@link ApplicationTransactions}), on PostgreSQL,
 * with a small manager of the test's own that keeps one transaction per thread on the application's pool: a call
 * joins the manager's open transaction, else has the manager begin one and commits or rolls it back; a failed commit
 * is a store failure and leaves nothing. Also the settings of a store given the application's {@code DataSource}.
 */
class ApplicationTransactionsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final String prefix = "idem:application-tx:" + UUID.randomUUID() + ":";
    private HikariDataSource pool;
    private ThreadTransactions manager;
    private JdbcIdempotencyStore store;
    private SideEffectTable side;

    /** A transaction manager: one transaction per thread, on a connection of the pool, bound until it ends. */
    static final class ThreadTransactions implements ApplicationTransactions {
        private final HikariDataSource pool;
        private final ThreadLocal<Connection> open = new ThreadLocal<>();
        private volatile boolean failNextCommit;

        ThreadTransactions(HikariDataSource pool) {
            this.pool = pool;
        }

        @Override
        public Optional<Connection> current() {
            return Optional.ofNullable(open.get());
        }

        @Override
        public Transaction begin() {
            try {
                Connection c = pool.getConnection();
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                open.set(c);
                return new Transaction() {
                    @Override
                    public Connection connection() {
                        return c;
                    }

                    @Override
                    public void commit() {
                        try {
                            if (failNextCommit) {
                                failNextCommit = false;
                                c.rollback();
                                throw new IllegalStateException("the manager's commit failed");
                            }
                            c.commit();
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        } finally {
                            end(c);
                        }
                    }

                    @Override
                    public void rollback() {
                        try {
                            c.rollback();
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        } finally {
                            end(c);
                        }
                    }
                };
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private void end(Connection c) {
            open.remove();
            try {
                c.setAutoCommit(true);
                c.close();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @BeforeEach
    void open() throws SQLException {
        pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setMaximumPoolSize(4);
        manager = new ThreadTransactions(pool);
        store = JdbcStoreProvider.builder(pool, Map.of("table", table, "createTable", "true"))
                .applicationTransactions(manager).build();
        side = new SideEffectTable(url);
    }

    @AfterEach
    void close() throws Exception {
        try {
            store.close();
            side.close();
            pool.close();
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @Test
    void withoutAnOpenTransactionTheManagerBeginsOneThatCommitsTheClaimTheWriteAndTheCompletion() throws Exception {
        String key = prefix + "begun";
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            assertFalse(tx.joined(), "the store ends the transaction the manager began for it");
            long token = acquired(tx.claim(request(key), Duration.ofSeconds(5)).orElseThrow()).fencingToken();
            side.insert(manager.current().orElseThrow(), "o-1");
            assertTrue(tx.complete(key, token, new byte[] {1}, TTL));
            assertEquals(0, side.rows("o-1"), "nothing is visible before the commit");
            tx.commit();
        }
        assertEquals(1, side.rows("o-1"));
        assertEquals(RecordState.COMPLETED, store.get(key).orElseThrow().state());
        assertTrue(manager.current().isEmpty(), "the transaction ended");
    }

    @Test
    void closedWithoutACommitTheManagersTransactionRollsBack() throws Exception {
        String key = prefix + "rolled-back";
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            acquired(tx.claim(request(key), Duration.ofSeconds(5)).orElseThrow());
            side.insert(manager.current().orElseThrow(), "o-2");
        }
        assertEquals(0, side.rows("o-2"));
        assertTrue(store.get(key).isEmpty(), "the claim rolled back with the write");
        assertTrue(manager.current().isEmpty());
    }

    @Test
    void aCommitTheManagerFailsIsAStoreFailureAndLeavesNothing() throws Exception {
        String key = prefix + "commit-failed";
        manager.failNextCommit = true;
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().joinOrBegin()) {
            long token = acquired(tx.claim(request(key), Duration.ofSeconds(5)).orElseThrow()).fencingToken();
            side.insert(manager.current().orElseThrow(), "o-3");
            assertTrue(tx.complete(key, token, new byte[] {1}, TTL));
            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, tx::commit);
            assertTrue(e.getMessage().contains("commit") && e.getMessage().contains("the manager's commit failed"),
                    e.getMessage());
        }
        assertEquals(0, side.rows("o-3"));
        assertTrue(store.get(key).isEmpty());
    }

    @Test
    void anOpenTransactionOfTheManagersIsJoinedAndCommittedByItsOwner() throws Exception {
        String key = prefix + "joined";
        ApplicationTransactions.Transaction application = manager.begin();
        try (TransactionalClaims.Transaction tx = store.transactionalClaims().join().orElseThrow()) {
            assertTrue(tx.joined());
            long token = acquired(tx.claim(request(key), Duration.ofSeconds(5)).orElseThrow()).fencingToken();
            side.insert(application.connection(), "o-4");
            assertTrue(tx.complete(key, token, new byte[] {1}, TTL));
            tx.commit();
        }
        assertEquals(0, side.rows("o-4"), "the owner has not committed yet");
        assertTrue(store.get(key).isEmpty());
        application.commit();
        assertEquals(1, side.rows("o-4"));
        assertEquals(RecordState.COMPLETED, store.get(key).orElseThrow().state());
    }

    @Test
    void withoutAManagersTransactionJoinFindsNone() {
        assertTrue(store.transactionalClaims().join().isEmpty());
    }

    @Test
    void applicationTransactionsNeedTheApplicationsDataSource() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> JdbcIdempotencyStore.builder(url).applicationTransactions(manager));
        assertTrue(e.getMessage().contains("DataSource"), e.getMessage());
    }

    @Test
    void aStoreOnTheApplicationsDataSourceRefusesThePoolsSettingsAndUnknownKeys() {
        for (String poolKey : new String[] {"url", "user", "password"}) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> JdbcStoreProvider.builder(pool, Map.of(poolKey, "x")));
            assertTrue(e.getMessage().startsWith("idem.jdbc." + poolKey + " configures a pool"), e.getMessage());
        }
        IdempotencyConfigurationException unknown = assertThrows(IdempotencyConfigurationException.class,
                () -> JdbcStoreProvider.builder(pool, Map.of("tabel", table)));
        assertTrue(unknown.getMessage().contains("idem.jdbc.tabel"), unknown.getMessage());
        IdempotencyConfigurationException badFlag = assertThrows(IdempotencyConfigurationException.class,
                () -> JdbcStoreProvider.builder(pool, Map.of("createTable", "yes")));
        assertTrue(badFlag.getMessage().contains("idem.jdbc.createTable"), badFlag.getMessage());
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "h", "owner", LEASE, Duration.ZERO);
    }

    private static ClaimOutcome.Acquired acquired(ClaimOutcome outcome) {
        return assertInstanceOf(ClaimOutcome.Acquired.class, outcome);
    }
}
