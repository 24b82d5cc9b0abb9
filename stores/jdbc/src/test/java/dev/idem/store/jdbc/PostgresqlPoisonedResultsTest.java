package dev.idem.store.jdbc;

import dev.idem.core.hostile.PoisonedResultsContract;
import dev.idem.store.IdempotencyStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link PoisonedResultsContract} on PostgreSQL (the server at {@code IDEM_TEST_POSTGRES_URL}, else an embedded one):
 * result bytes an attacker replaced in the table.
 */
class PostgresqlPoisonedResultsTest extends PoisonedResultsContract {
    private static final String TABLE = JdbcStoreTck.uniqueTable();
    private static EmbeddedPostgres embedded;
    private static String url;

    @BeforeAll
    static void startDatabase() throws Exception {
        url = System.getenv("IDEM_TEST_POSTGRES_URL");
        if (url == null || url.isBlank()) {
            Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
            embedded = EmbeddedPostgres.builder().start();
            url = embedded.getJdbcUrl("postgres", "postgres");
        }
    }

    @AfterAll
    static void stopDatabase() throws Exception {
        try {
            JdbcStoreTck.dropTable(url, TABLE);
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    @Override
    protected IdempotencyStore openStore() {
        return JdbcIdempotencyStore.builder(url).table(TABLE).createTable(true).build();
    }
}
