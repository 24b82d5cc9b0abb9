package dev.idem.store.jdbc;

import dev.idem.core.hostile.PoisonedResultsContract;
import dev.idem.store.IdempotencyStore;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link PoisonedResultsContract} on PostgreSQL (the server at {@code IDEM_TEST_POSTGRES_URL}, else an embedded one):
 * result bytes an attacker replaced in the table.
 */
class PostgresqlPoisonedResultsTest extends PoisonedResultsContract {
    private static final String TABLE = JdbcStoreTck.uniqueTable();

    @AfterAll
    static void dropTable() throws Exception {
        JdbcStoreTck.dropTable(TestPostgres.url(), TABLE);
    }

    @Override
    protected IdempotencyStore openStore() {
        return JdbcIdempotencyStore.builder(TestPostgres.url()).table(TABLE).createTable(true).build();
    }
}
