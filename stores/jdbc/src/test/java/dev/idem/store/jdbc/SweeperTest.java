package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sweeper of expired rows, on real PostgreSQL, SQLite and H2: expired rows go in batches no larger than asked,
 * live records stay, a key claimed after its row was swept gets a larger token than it ever had, and the sweeper's
 * own thread does the work and stops when the store closes. Time moves through the store's test offset.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SweeperTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final AtomicLong offset = new AtomicLong();
    private final List<Runnable> cleanup = new ArrayList<>();
    private String url;
    private String table;

    @AfterEach
    void dropTable() throws Exception {
        cleanup.forEach(Runnable::run);
        if (table != null) {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    private static String url(String database) throws Exception {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target")).toAbsolutePath();
        return switch (database) {
            case "postgresql" -> TestPostgres.url();
            case "sqlite" -> {
                Files.createDirectories(dir.resolve("sqlite"));
                yield "jdbc:sqlite:" + dir.resolve("sqlite").resolve("sweeper.db") + "?busy_timeout=20000";
            }
            default -> "jdbc:h2:file:" + dir.resolve("h2").resolve("sweeper") + ";LOCK_TIMEOUT=10000";
        };
    }

    private JdbcIdempotencyStore open(JdbcIdempotencyStore.Builder tuning) {
        JdbcIdempotencyStore store = tuning.serverTimeOffset(offset::get).build();
        cleanup.add(0, store::close);
        return store;
    }

    private JdbcIdempotencyStore.Builder builder(String database) throws Exception {
        url = url(database);
        if (table == null) {
            table = JdbcStoreTck.uniqueTable();
        }
        return JdbcIdempotencyStore.builder(url).table(table).createTable(true);
    }

    private static String key(String name) {
        return "idem:sweeper:test:" + name + "-" + UUID.randomUUID();
    }

    private static long claim(JdbcIdempotencyStore store, String key, Duration lease) {
        return assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key, "h", "owner", lease, Duration.ZERO))).fencingToken();
    }

    private long rows() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private boolean hasRow(String key) throws Exception {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE key_hash = ?")) {
            ps.setBytes(1, KeyHashes.of(key));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) == 1;
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "sqlite", "h2"})
    void expiredRowsGoInBoundedBatchesAndLiveOnesStay(String database) throws Exception {
        JdbcIdempotencyStore store = open(builder(database).sweepBatchSize(3));
        List<String> expiring = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            String key = key("short-" + i);
            assertTrue(store.complete(key, claim(store, key, LEASE), new byte[] {1}, Duration.ofMinutes(1)));
            expiring.add(key);
        }
        String released = key("released");
        assertTrue(store.release(released, claim(store, released, LEASE)));
        String kept = key("kept");
        assertTrue(store.complete(kept, claim(store, kept, LEASE), new byte[] {2}, Duration.ofHours(1)));
        String running = key("running");
        long runningToken = claim(store, running, Duration.ofMinutes(30));
        String abandoned = key("abandoned");
        claim(store, abandoned, Duration.ofSeconds(1));
        assertEquals(11, rows());

        offset.addAndGet(Duration.ofMinutes(2).plus(JdbcIdempotencyStore.SWEEP_MARGIN).toMillis());
        assertEquals(3, store.deleteExpiredBatch(), "a batch deletes at most the batch size");
        assertEquals(8, rows());
        assertEquals(3, store.deleteExpiredBatch());
        assertEquals(2, store.deleteExpiredBatch(), "the seven expired records and the released key's row");
        assertEquals(0, store.deleteExpiredBatch());
        assertEquals(3, rows());
        for (String key : expiring) {
            assertFalse(hasRow(key), key);
        }
        assertFalse(hasRow(released));
        assertArrayEquals(new byte[] {2}, store.get(kept).orElseThrow().result(), "a record within its ttl stays");
        assertEquals(runningToken, store.get(running).orElseThrow().fencingToken(), "a lease in force stays");
        assertTrue(store.get(abandoned).isPresent(), "an abandoned claim stays for the grace period after its lease");
        assertTrue(store.renew(running, runningToken, LEASE), "the running execution still owns its key");

        offset.addAndGet(Duration.ofMinutes(30).plus(JdbcIdempotencyStore.ABANDONED_GRACE).toMillis());
        assertEquals(3, store.deleteExpiredBatch(), "then the rest expired: the hour's record, both abandoned claims");
        assertEquals(0, rows());
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "sqlite", "h2"})
    void aKeyClaimedAfterItsRowWasSweptGetsALargerTokenThanItEverHad(String database) throws Exception {
        JdbcIdempotencyStore store = open(builder(database));
        String key = key("reclaimed");
        long token = 0;
        for (int i = 0; i < 3; i++) { // claimed and released a few times: the row's token is well past its first
            long next = claim(store, key, LEASE);
            assertTrue(next > token);
            token = next;
            assertTrue(store.release(key, token));
        }
        long last = claim(store, key, LEASE);
        assertTrue(store.complete(key, last, new byte[] {1}, Duration.ofMinutes(1)));

        offset.addAndGet(Duration.ofMinutes(2).plus(JdbcIdempotencyStore.SWEEP_MARGIN).toMillis());
        assertEquals(1, store.deleteExpiredBatch());
        assertFalse(hasRow(key), "the key's row was deleted");

        long after = claim(store, key, LEASE);
        assertTrue(after > last, "the token after the sweep, " + after + ", must exceed the last one, " + last);
        assertFalse(store.complete(key, last, new byte[] {9}, Duration.ofMinutes(1)),
                "a late completion of the swept claim is refused");
    }

    /**
     * Where a claim draws its token by one statement and inserts by the next (H2; MariaDB alike), a released or deleted
     * key's row and an expired record's row stay for the sweeper's margin, so a claim between its two statements
     * meets the row rather than inserting below its token; elsewhere they go at once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "sqlite", "h2"})
    void releasedDeletedAndExpiredRowsStayForTheMarginOnlyWhereClaimsDrawAndInsertApart(String database)
            throws Exception {
        JdbcIdempotencyStore store = open(builder(database));
        String released = key("released");
        assertTrue(store.release(released, claim(store, released, LEASE)));
        String deleted = key("deleted");
        claim(store, deleted, LEASE);
        store.delete(deleted);
        String expired = key("expired");
        assertTrue(store.complete(expired, claim(store, expired, LEASE), new byte[] {1}, Duration.ofSeconds(1)));
        offset.addAndGet(Duration.ofSeconds(2).toMillis()); // past the expiry, whatever its jitter

        if (store.dialect().sweepsAfterAMargin) {
            // Half the margin: the database's own clock runs meanwhile, and a loaded machine is slow.
            offset.addAndGet(JdbcIdempotencyStore.SWEEP_MARGIN.dividedBy(2).toMillis());
            assertEquals(0, store.deleteExpiredBatch(), "within the margin every row stays");
            assertTrue(hasRow(released) && hasRow(deleted) && hasRow(expired));
            offset.addAndGet(JdbcIdempotencyStore.SWEEP_MARGIN.toMillis());
        }
        assertEquals(3, store.deleteExpiredBatch());
        assertFalse(hasRow(released) || hasRow(deleted) || hasRow(expired));
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "sqlite"})
    void theSweeperDeletesOnItsOwnDaemonThreadAndStopsWithTheStore(String database) throws Exception {
        JdbcIdempotencyStore plain = open(builder(database));
        String gone = key("gone");
        assertTrue(plain.complete(gone, claim(plain, gone, LEASE), new byte[] {1}, Duration.ofMinutes(1)));
        String kept = key("kept");
        assertTrue(plain.complete(kept, claim(plain, kept, LEASE), new byte[] {1}, Duration.ofHours(1)));
        offset.addAndGet(Duration.ofMinutes(2).toMillis());

        JdbcIdempotencyStore swept = open(builder(database).sweepInterval(Duration.ofMillis(50)));
        Thread thread = swept.sweeper().thread();
        assertTrue(thread.isDaemon(), "the sweeper never keeps the JVM alive");
        while (hasRow(gone)) {
            Thread.sleep(20); // polled: the sweeper deletes it within a few intervals; the class's timeout bounds this
        }
        assertTrue(hasRow(kept));

        swept.close();
        thread.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(thread.isAlive(), "close() stops the sweeper");
        assertTrue(plain.get(kept).isPresent(), "the other store still works");
    }
}
