package dev.idem.store.jdbc;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotentOperation;
import dev.idem.store.RecordState;
import dev.idem.testsupport.ChildJvm;
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
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transactional mode under kill -9 (issue 9): a worker JVM killed between its side-effect write and the commit
 * leaves neither the write nor a completed record; the retry runs once; the side-effect table never holds a
 * duplicate.
 */
class TransactionalCrashTest {
    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private JdbcIdempotencyStore store;
    private IdemEngine engine;
    private SideEffectTable side;

    @BeforeEach
    void open() throws SQLException {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).build();
        engine = IdemEngine.create(IdemSettings.custom().namespace("tx-crash").store("pg", store).defaultStore("pg")
                .build());
        side = new SideEffectTable(url);
    }

    @AfterEach
    void close() throws Exception {
        try {
            engine.close();
            store.close();
        } finally {
            side.close();
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @Test
    @Timeout(120)
    void aWorkerKilledBetweenItsWriteAndTheCommitLeavesNeitherAndTheRetryRunsOnce() throws Exception {
        String order = "order-" + UUID.randomUUID();
        String worker = "idem-tx-crash-" + UUID.randomUUID();
        String key;
        try (ChildJvm process = ChildJvm.of(TransactionalCrashWorker.class)
                .args(TestPostgres.tagged(url, worker), table, side.name, order).start()) {
            String line = process.next(l -> true, Duration.ofSeconds(60));
            assertTrue(line.startsWith("WROTE "), line);
            key = line.substring("WROTE ".length());

            assertEquals("idle in transaction", state(worker), "the worker has written and not committed");
            assertEquals(0, rows(order), "its write is not visible before the commit");
            process.kill(); // kill -9: no shutdown hook, no rollback from the worker's side
        }

        assertEquals(0, rows(order), "the write died with the worker");
        assertEquals(Optional.empty(), store.get(key), "and no record, completed or in progress, remains");

        AtomicInteger runs = new AtomicInteger();
        IdempotentOperation<String> place = engine.operation(TransactionalCrashWorker.policy(), String.class);
        for (int call = 0; call < 3; call++) { // the retry, then duplicates of it
            assertEquals("placed " + order, place.call(() -> {
                runs.incrementAndGet();
                TransactionalCrashWorker.insert(side.name, order);
                return "placed " + order;
            }, order));
        }
        assertEquals(1, runs.get(), "the retry ran once; its duplicates replayed it");
        assertEquals(1, rows(order), "the side-effect table holds the order once");
        assertEquals(RecordState.COMPLETED, store.get(key).orElseThrow().state());
    }

    /** The state of the worker's connection that holds its transaction, as the server sees it. */
    private String state(String applicationName) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT state FROM pg_stat_activity WHERE application_name = ?"
                     + " AND backend_xid IS NOT NULL")) {
            ps.setString(1, applicationName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "no open transaction";
            }
        }
    }

    private int rows(String order) throws SQLException {
        return side.rows(order);
    }
}
