package dev.idem.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyStoreException;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.testsupport.LoopbackProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL unreachable in the middle of a run, through a {@link LoopbackProxy} between the application's pool and
 * the server: every call fails closed with {@link IdempotencyStoreException}, the method does not run and nothing is
 * written; once the database is back, the same application (engine, store and pool unchanged) runs the calls.
 */
class OutageTest extends CrossProcessSuite {


    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void callsFailClosedWhileTheDatabaseIsAwayAndSucceedOnceItIsBack() throws Exception {
        createTables(false);
        URI server = URI.create(url.substring("jdbc:".length()));
        AtomicInteger runs = new AtomicInteger();
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place")
                .scope("suite:outage-" + UUID.randomUUID()).ttl("10m").build();
        try (LoopbackProxy proxy = new LoopbackProxy(server.getHost(), server.getPort());
             HikariDataSource pool = pool(url.replace(server.getHost() + ":" + server.getPort(),
                     "127.0.0.1:" + proxy.port()));
             JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).table(table).build();
             IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("suite").store("jdbc", store)
                     .defaultStore("jdbc").build())) {
            IdempotentOperation<String> place = engine.operation(policy, String.class);
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String order = "before-" + i;
                assertEquals("placed " + order, place.call(() -> {
                    runs.incrementAndGet();
                    return "placed " + order;
                }, order));
            }
            assertEquals(3, runs.get());

            proxy.cut();
            for (int i = 0; i < 4; i++) {
                String order = "during-" + i;
                keys.add(order);
                IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                        () -> place.call(() -> {
                            runs.incrementAndGet();
                            return "placed " + order;
                        }, order));
                assertTrue(e.getCause().getMessage().contains("claim of scope suite:suite:outage-"),
                        "the store's error names the operation and the scope: " + e.getCause().getMessage());
            }
            assertEquals(3, runs.get(), "no method ran while the database was away");
            assertEquals(3, rows(), "nothing was written");

            proxy.restore();
            for (String order : keys) {
                // The pool may still spend a connection attempt begun during the outage: the first calls after it
                // may fail, closed as before, until a new connection is made; then each order runs once.
                String placed = null;
                while (placed == null) {
                    try {
                        placed = place.call(() -> {
                            runs.incrementAndGet();
                            return "placed " + order;
                        }, order);
                    } catch (IdempotencyStoreException stillAway) {
                        Thread.sleep(50);
                    }
                }
                assertEquals("placed " + order, placed);
            }
            assertEquals(7, runs.get(), "each order of the outage ran once it was back");
            for (String order : keys) {
                assertEquals("placed " + order, place.call(() -> "placed twice", order), "and is replayed");
            }
            for (int i = 0; i < 3; i++) {
                String order = "before-" + i;
                assertEquals("placed " + order, place.call(() -> "placed twice", order));
            }
            assertEquals(7, runs.get(), "nothing ran again");
            assertEquals(7, rows());
        }
    }

    private long rows() throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static HikariDataSource pool(String jdbcUrl) {
        HikariConfig config = new HikariConfig();
        // Short timeouts, as an application that wants to fail fast would set them: a connection attempt to a
        // silent server gives up after a second.
        config.setJdbcUrl(jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "connectTimeout=1&socketTimeout=2"
                + "&loginTimeout=1");
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(1_000);
        config.setValidationTimeout(500);
        return new HikariDataSource(config);
    }
}
