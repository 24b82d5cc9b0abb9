package dev.idem.store.jdbc;

import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;

/**
 * What every cross-process suite has: a database (PostgreSQL unless a suite names another), a records table of its
 * own made for the test, and optionally a side-effect table; both dropped after the test.
 */
abstract class CrossProcessSuite {
    final String url;
    final String table = JdbcStoreTck.uniqueTable();
    SideTable side;

    CrossProcessSuite() {
        this(TestPostgres.url());
    }

    CrossProcessSuite(String url) {
        this.url = url;
    }

    /** Creates the records table (with its token counter), and the side-effect table when asked. */
    void createTables(boolean withSideTable) throws Exception {
        JdbcIdempotencyStore.builder(url).table(table).createTable(true).build().close();
        if (withSideTable) {
            side = SideTable.create(url, table);
        }
    }

    @AfterEach
    void dropTables() throws Exception {
        JdbcStoreTck.dropTable(url, table);
        if (side != null) {
            side.drop();
        }
    }
}
