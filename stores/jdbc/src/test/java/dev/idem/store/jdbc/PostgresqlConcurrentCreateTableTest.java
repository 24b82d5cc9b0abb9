package dev.idem.store.jdbc;

import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Processes of one application that start together, each with {@code createTable(true)}, all create the table at
 * once: PostgreSQL's {@code CREATE ... IF NOT EXISTS} is not atomic against a concurrent one (a loser fails on the
 * catalog's unique index), and every store must still start. Four stores start at one barrier on each of several new
 * tables, so that the race is met.
 */
class PostgresqlConcurrentCreateTableTest {
    private static final int STARTERS = 4;
    private static final int TABLES = 8;

    private final String url = TestPostgres.url();
    private final List<String> tables = new ArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(STARTERS);

    @AfterEach
    void close() throws Exception {
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS));
        for (String table : tables) {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @Test
    @Timeout(120)
    void storesThatCreateTheirTableAtOnceAllStart() throws Exception {
        for (int t = 0; t < TABLES; t++) {
            String table = JdbcStoreTck.uniqueTable();
            tables.add(table);
            CyclicBarrier together = new CyclicBarrier(STARTERS);
            List<Future<JdbcIdempotencyStore>> starts = new ArrayList<>();
            for (int s = 0; s < STARTERS; s++) {
                starts.add(threads.submit(() -> {
                    together.await(30, TimeUnit.SECONDS);
                    return JdbcIdempotencyStore.builder(url).table(table).createTable(true).maximumPoolSize(1)
                            .build();
                }));
            }
            for (Future<JdbcIdempotencyStore> start : starts) {
                start.get(60, TimeUnit.SECONDS).close(); // throws if that store could not start
            }
        }
    }
}
