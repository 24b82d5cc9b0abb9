package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On H2, SQLite and MariaDB a claim of an absent key draws its token and inserts the key's row by separate
 * statements. This test stops one claim between the two (its connection waits when the claim prepares the insert),
 * lets another claim hold the key and release it and the sweeper run, then lets the first claim go on: every hold's
 * token, in the order the key was held, must be larger than the one before. Without what keeps the sweeper out of
 * that gap (SQLite's one write, the sweeper's margin on H2 and MariaDB) the first claim inserted below the other's
 * token.
 */
class StalledClaimTokenTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** How long the test lets the other claim try while the first is stopped; on SQLite it waits for the first. */
    private static final long OTHER_CLAIM_SECONDS = 5;

    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final List<Long> held = new ArrayList<>();
    private String url;
    private String table;
    private JdbcIdempotencyStore store;

    @AfterEach
    void close() throws Exception {
        threads.shutdownNow();
        if (store != null) {
            store.close();
        }
        if (table != null) {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "mariadb"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClaimStoppedBetweenItsDrawAndItsInsertNeverHoldsTheKeyBelowATokenItHadMeanwhile(String database)
            throws Exception {
        url = url(database);
        table = JdbcStoreTck.uniqueTable();
        StoppingDataSource stopping = new StoppingDataSource(url, "INSERT INTO " + table);
        store = JdbcIdempotencyStore.builder(stopping).table(table).createTable(true).build();
        String key = "idem:stalled:claim:" + UUID.randomUUID();

        Future<ClaimOutcome> first = threads.submit(() -> {
            stopping.stopThisThreadAtItsNextInsert();
            return holdOnce(key, "first", false);
        });
        assertTrue(stopping.stopped.await(30, TimeUnit.SECONDS), "the first claim reached its insert");

        Future<ClaimOutcome> other = threads.submit(() -> {
            ClaimOutcome outcome = holdOnce(key, "other", true);
            store.deleteExpiredBatch(); // the sweeper, which may delete the released row
            return outcome;
        });
        try {
            other.get(OTHER_CLAIM_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException waitingForTheFirst) {
            // SQLite: the other claim waits for the first one's write to end
        }
        stopping.resume.countDown();

        assertInstanceOf(ClaimOutcome.Acquired.class, first.get(30, TimeUnit.SECONDS), "the first claim acquires");
        other.get(30, TimeUnit.SECONDS);
        synchronized (held) {
            for (int i = 1; i < held.size(); i++) {
                assertTrue(held.get(i) > held.get(i - 1), "tokens in the order " + key + " was held: " + held);
            }
        }
    }

    /** Claims {@code key}; when acquired, logs the token while holding it and, if asked, releases it. */
    private ClaimOutcome holdOnce(String key, String owner, boolean release) {
        ClaimOutcome outcome = store.claim(new ClaimRequest(key, "hash", owner, LEASE, Duration.ZERO));
        if (outcome instanceof ClaimOutcome.Acquired acquired) {
            synchronized (held) {
                held.add(acquired.fencingToken());
            }
            if (release) {
                assertTrue(store.release(key, acquired.fencingToken()));
            }
        }
        return outcome;
    }

    private static String url(String database) throws Exception {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target")).toAbsolutePath();
        return switch (database) {
            case "sqlite" -> {
                Files.createDirectories(dir.resolve("sqlite"));
                yield "jdbc:sqlite:" + dir.resolve("sqlite").resolve("stalled.db") + "?busy_timeout=60000";
            }
            case "mariadb" -> {
                String mariadb = System.getenv("IDEM_TEST_MARIADB_URL");
                Assumptions.assumeTrue(mariadb != null && !mariadb.isBlank(),
                        "IDEM_TEST_MARIADB_URL is not set: the MariaDB case is skipped");
                yield mariadb;
            }
            default -> "jdbc:h2:file:" + dir.resolve("h2").resolve("stalled") + ";LOCK_TIMEOUT=10000";
        };
    }

    /**
     * Connections straight from the driver; the one thread asked to stop waits, once, when it prepares a statement
     * starting with {@code stopAt}, until {@link #resume} opens.
     */
    private static final class StoppingDataSource extends ConnectionsOnlyDataSource {
        final CountDownLatch stopped = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        private final String url;
        private final String stopAt;
        private volatile Thread stopping;

        StoppingDataSource(String url, String stopAt) {
            this.url = url;
            this.stopAt = stopAt;
        }

        void stopThisThreadAtItsNextInsert() {
            stopping = Thread.currentThread();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection real = DriverManager.getConnection(url);
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("prepareStatement") && args != null
                                && args[0] instanceof String sql && sql.startsWith(stopAt)
                                && stopping == Thread.currentThread()) {
                            stopping = null;
                            stopped.countDown();
                            if (!resume.await(60, TimeUnit.SECONDS)) {
                                throw new SQLException("the test never resumed the stopped claim");
                            }
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
