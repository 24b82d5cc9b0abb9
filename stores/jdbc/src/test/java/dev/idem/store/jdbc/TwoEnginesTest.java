package dev.idem.store.jdbc;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two engines configured with {@code idem.store=jdbc} over one database, as two processes would be: a call made
 * through one runs once, and the same call through the other replays its result.
 */
class TwoEnginesTest {
    private static final String URL = "jdbc:h2:file:" + Path.of(System.getProperty("idem.test.dir", "target"), "h2",
            "idem-engines").toAbsolutePath() + ";LOCK_TIMEOUT=10000";
    private final String table = JdbcStoreTck.uniqueTable();

    @AfterEach
    void dropTable() throws Exception {
        JdbcStoreTck.dropTable(URL, table);
    }

    private IdemEngine engine() {
        return IdemEngine.create(IdemSettings.fromProperties(Map.of("idem.store", "jdbc", "idem.jdbc.url", URL,
                "idem.jdbc.table", table, "idem.jdbc.createTable", "true")));
    }

    @Test
    void aCallThroughOneEngineIsReplayedThroughTheOther() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place").scope("jdbc:orders").build();
        String order = "order-" + UUID.randomUUID();
        try (IdemEngine first = engine(); IdemEngine second = engine()) {
            IdempotentOperation<String> viaFirst = first.operation(policy, String.class);
            IdempotentOperation<String> viaSecond = second.operation(policy, String.class);

            String placed = viaFirst.call(() -> {
                runs.incrementAndGet();
                return "placed " + order;
            }, order);
            String replayed = viaSecond.call(() -> {
                runs.incrementAndGet();
                return "placed again";
            }, order);

            assertEquals("placed " + order, placed);
            assertEquals("placed " + order, replayed, "the second engine replays the first one's result");
            assertEquals(1, runs.get(), "the call ran once across both engines");
        }
    }
}
