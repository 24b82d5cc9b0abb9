package dev.idem.store.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Files;
import java.nio.file.Path;

/** The TCK on SQLite, a database file under target/ in WAL mode, shared by every store of a test. */
class SqliteTckTest extends JdbcStoreTck {
    private static final String TABLE = uniqueTable();
    private static final Path DIR = Path.of(System.getProperty("idem.test.dir", "target"), "sqlite").toAbsolutePath();
    private static final String URL = "jdbc:sqlite:" + DIR.resolve("idem.db") + "?journal_mode=WAL&busy_timeout=20000";

    @BeforeAll
    static void makeDirectory() throws Exception {
        Files.createDirectories(DIR);
    }

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
