package dev.idem.store.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The TCK on PostgreSQL: the server at {@code IDEM_TEST_POSTGRES_URL} when set (CI sets it), else an embedded
 * PostgreSQL started under target/.
 */
class PostgresqlTckTest extends JdbcStoreTck {
    private static final String TABLE = uniqueTable();
    private static EmbeddedPostgres embedded;
    private static String url;

    @BeforeAll
    static void startDatabase() throws Exception {
        url = System.getenv("IDEM_TEST_POSTGRES_URL");
        if (url == null || url.isBlank()) {
            Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
            embedded = EmbeddedPostgres.builder().start();
            url = embedded.getJdbcUrl("postgres", "postgres");
            System.out.println("IDEM_TEST_POSTGRES_URL is not set: the TCK runs on an embedded PostgreSQL");
        }
    }

    @AfterAll
    static void stopDatabase() throws Exception {
        try {
            if (url != null) {
                dropTable(url, TABLE);
            }
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    @Override
    protected String url() {
        return url;
    }

    @Override
    protected String table() {
        return TABLE;
    }
}
