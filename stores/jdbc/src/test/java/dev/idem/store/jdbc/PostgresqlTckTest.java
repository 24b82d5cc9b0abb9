package dev.idem.store.jdbc;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCK on PostgreSQL ({@link TestPostgres}). Also: a connection the server drops fails the call, and the next call
 * reconnects.
 */
class PostgresqlTckTest extends JdbcStoreTck {
    private static final String TABLE = uniqueTable();
    private static String url;

    @BeforeAll
    static void startDatabase() {
        url = TestPostgres.url();
    }

    @AfterAll
    static void dropTable() throws Exception {
        if (url != null) {
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

    @Test
    void aConnectionTheServerDropsFailsClosedAndTheNextCallReconnects() throws Exception {
        String application = "idem-lost-" + UUID.randomUUID();
        String tagged = url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + application;
        String key = "idem:tck:lost-connection:" + UUID.randomUUID();
        try (JdbcIdempotencyStore store = configured(JdbcIdempotencyStore.builder(tagged)).table(TABLE).build()) {
            ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class,
                    store.claim(new ClaimRequest(key, "h", "a", Duration.ofSeconds(30), Duration.ZERO)));

            int killed;
            try (Connection admin = DriverManager.getConnection(url);
                 PreparedStatement ps = admin.prepareStatement("SELECT count(pg_terminate_backend(pid))"
                         + " FROM pg_stat_activity WHERE application_name = ?")) {
                ps.setString(1, application);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    killed = rs.getInt(1);
                }
            }
            assertTrue(killed > 0, "the store's connections were found and dropped");

            // The first call after the drop may fail (closed: a store exception, never a wrong answer) or may already
            // run on a fresh connection if the pool noticed; the next one runs.
            try {
                store.get(key);
            } catch (IdempotencyStoreException expected) {
                assertTrue(expected.getMessage().contains("get of scope tck:lost-connection"), expected.getMessage());
            }
            assertEquals(first.fencingToken(), store.get(key).orElseThrow().fencingToken());
            assertTrue(store.complete(key, first.fencingToken(), new byte[] {1}, Duration.ofMinutes(1)));
        }
    }
}
