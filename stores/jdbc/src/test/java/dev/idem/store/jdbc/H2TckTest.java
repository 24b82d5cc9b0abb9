package dev.idem.store.jdbc;

import org.junit.jupiter.api.AfterAll;

import java.nio.file.Path;

/** The TCK on H2 2.x, a database file under target/ (two stores over one file are two pools over one database). */
class H2TckTest extends JdbcStoreTck {
    private static final String TABLE = uniqueTable();
    private static final String URL = "jdbc:h2:file:" + Path.of(System.getProperty("idem.test.dir", "target"), "h2",
            "idem").toAbsolutePath() + ";LOCK_TIMEOUT=10000";

    @AfterAll
    static void dropTable() throws Exception {
        dropTable(URL, TABLE);
    }

    @Override
    protected String url() {
        return URL;
    }

    @Override
    protected String table() {
        return TABLE;
    }
}
