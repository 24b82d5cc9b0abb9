package dev.idem.store.jdbc;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.store.jdbc.readme.Payments;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The transactional-mode example of docs/jdbc-store.md ({@link Payments}) run on PostgreSQL, in a schema of its own
 * so that its table names are the example's. Its method is called through the engine as woven advice would call it.
 */
class ReadmeExampleTest {
    private final String schema = "idem_readme_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final String url = TestPostgres.url() + (TestPostgres.url().contains("?") ? "&" : "?")
            + "currentSchema=" + schema;
    private JdbcIdempotencyStore store;
    private IdemEngine engine;
    private WovenPayments payments;

    /** What weaving makes of {@link Payments}: {@code capture} goes through the engine. */
    private final class WovenPayments extends Payments {
        private final Method capture;

        WovenPayments() throws NoSuchMethodException {
            capture = Payments.class.getMethod("capture", String.class, long.class);
        }

        @Override
        public String capture(String paymentId, long cents) throws SQLException {
            try {
                return (String) engine.invoke(capture, new Object[] {paymentId, cents},
                        () -> super.capture(paymentId, cents));
            } catch (SQLException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }

    @BeforeEach
    void open() throws Exception {
        try (Connection c = DriverManager.getConnection(TestPostgres.url()); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            s.execute("CREATE TABLE " + schema + ".captures (payment_id TEXT NOT NULL, cents BIGINT NOT NULL)");
            s.execute("CREATE TABLE " + schema + ".ledger (payment_id TEXT NOT NULL,"
                    + " cents BIGINT NOT NULL CHECK (cents > -1000000))");
        }
        store = JdbcIdempotencyStore.builder(url).table(schema + ".idem_records").createTable(true).build();
        engine = IdemEngine.create(IdemSettings.custom().store("pg", store).defaultStore("pg").build());
        payments = new WovenPayments();
    }

    @AfterEach
    void close() throws Exception {
        try {
            engine.close();
            store.close();
        } finally {
            try (Connection c = DriverManager.getConnection(TestPostgres.url()); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    @Test
    void captureRunsOnceInItsOwnTransaction() throws Exception {
        assertEquals("captured p-1", payments.capture("p-1", 500));
        assertEquals("captured p-1", payments.capture("p-1", 500));
        assertEquals(1, count("captures", "p-1"));
    }

    @Test
    void captureAndBookCommitsOnceAndARolledBackAttemptLeavesNothing() throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);

        // The ledger refuses the booking (its CHECK), so the application rolls back: the capture goes with it.
        assertThrows(SQLException.class, () -> payments.captureAndBook(dataSource, "p-2", 2_000_000));
        assertEquals(0, count("captures", "p-2"));
        assertEquals(0, count("ledger", "p-2"));

        payments.captureAndBook(dataSource, "p-2", 2_000); // a retry (its amount corrected) captures again
        assertEquals(1, count("captures", "p-2"));
        assertEquals(1, count("ledger", "p-2"));
        assertEquals("captured p-2", payments.capture("p-2", 2_000), "and the capture is now replayed");
        assertEquals(1, count("captures", "p-2"));
    }

    private int count(String table, String paymentId) throws SQLException {
        return SideEffectTable.count(url, table, "payment_id", paymentId);
    }
}
