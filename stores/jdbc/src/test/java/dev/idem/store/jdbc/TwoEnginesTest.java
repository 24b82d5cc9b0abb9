package dev.idem.store.jdbc;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.sharing.TwoEnginesContract;
import org.junit.jupiter.api.AfterEach;

import java.nio.file.Path;
import java.util.Map;

/**
 * {@link TwoEnginesContract} with {@code idem.store=jdbc}: two engines over one database, as two processes would be.
 */
class TwoEnginesTest extends TwoEnginesContract {
    private static final String URL = "jdbc:h2:file:" + Path.of(System.getProperty("idem.test.dir", "target"), "h2",
            "idem-engines").toAbsolutePath() + ";LOCK_TIMEOUT=10000";
    private final String table = JdbcStoreTck.uniqueTable();

    @AfterEach
    void dropTable() throws Exception {
        JdbcStoreTck.dropTable(URL, table);
    }

    @Override
    protected IdemEngine engine() {
        return IdemEngine.create(IdemSettings.fromProperties(Map.of("idem.store", "jdbc", "idem.jdbc.url", URL,
                "idem.jdbc.table", table, "idem.jdbc.createTable", "true")));
    }
}
