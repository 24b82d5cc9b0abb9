package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.StoreTransaction;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transactional mode is the jdbc store's on PostgreSQL only: on the other databases a method declaring it is
 * refused when it is planned, with the method, the attribute, the database and the reason; it never runs. MariaDB
 * runs at {@code IDEM_TEST_MARIADB_URL} (CI sets it); without it that test is skipped, saying why.
 */
class TransactionalModeDialectTest {
    private static final Path DIR = Path.of(System.getProperty("idem.test.dir", "target")).toAbsolutePath();

    @Test
    void h2IsRefusedAtPlanning() throws Exception {
        String url = "jdbc:h2:file:" + DIR.resolve("h2").resolve("idem-tx") + ";LOCK_TIMEOUT=10000";
        assertRefused(url, "on H2");
    }

    @Test
    void sqliteIsRefusedAtPlanning() throws Exception {
        Files.createDirectories(DIR.resolve("sqlite"));
        assertRefused("jdbc:sqlite:" + DIR.resolve("sqlite").resolve("idem-tx.db"), "on SQLite");
    }

    @Test
    void mariadbIsRefusedAtPlanning() throws Exception {
        String url = System.getenv("IDEM_TEST_MARIADB_URL");
        if (url == null || url.isBlank()) {
            String reason = "IDEM_TEST_MARIADB_URL is not set: the MariaDB refusal is not run";
            System.out.println(reason);
            Assumptions.abort(reason);
        }
        assertRefused(url, "on MariaDB/MySQL");
    }

    @Test
    void everyOtherDialectNamesItsReason() {
        for (Dialect dialect : Dialect.values()) {
            if (dialect != Dialect.POSTGRESQL) {
                assertTrue(JdbcTransactionalClaims.whyNot(dialect).contains("PostgreSQL only: on "),
                        JdbcTransactionalClaims.whyNot(dialect));
            }
        }
    }

    private static void assertRefused(String url, String database) throws Exception {
        String table = JdbcStoreTck.uniqueTable();
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).build();
             IdemEngine engine = IdemEngine.create(IdemSettings.custom().store("db", store).defaultStore("db")
                     .build())) {
            IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place").scope("tx:orders")
                    .storeTransaction(StoreTransaction.REQUIRED).build();
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> engine.operation(policy, String.class));
            assertTrue(e.getMessage().contains("Orders#place: @Idempotent(storeTransaction = REQUIRED)"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("store \"db\" cannot: the jdbc store runs storeTransaction on"
                    + " PostgreSQL only: " + database), e.getMessage());
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }
}
