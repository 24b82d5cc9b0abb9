package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.StoreTransaction;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transactional mode is the jdbc store's on PostgreSQL only: on the other databases a method declaring it is
 * refused when it is planned, with the method, the attribute, the database and the reason; it never runs. (MariaDB
 * is refused by the same check on the detected dialect; its server is not needed to show it.)
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
