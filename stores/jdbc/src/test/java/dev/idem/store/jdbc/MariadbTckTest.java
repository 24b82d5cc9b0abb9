package dev.idem.store.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK on MariaDB (10.11) at {@code IDEM_TEST_MARIADB_URL}, which CI sets.
 * Without it the tests are skipped, saying so: there is no embedded MariaDB.
 */
class MariadbTckTest extends JdbcStoreTck {
    private static final String TABLE = uniqueTable();
    private static String url;

    @BeforeAll
    static void findDatabase() {
        url = System.getenv("IDEM_TEST_MARIADB_URL");
        if (url == null || url.isBlank()) {
            String reason = "IDEM_TEST_MARIADB_URL is not set (such as jdbc:mariadb://127.0.0.1:3306/test?user=root):"
                    + " the TCK on MariaDB is skipped";
            System.out.println(reason);
            Assumptions.abort(reason);
        }
    }

    @AfterAll
    static void dropTable() throws Exception {
        if (url != null && !url.isBlank()) {
            dropTable(url, TABLE);
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
