package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreTck;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.tck.StoreTime;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCK against one database: every store of a test (and its peer, a second store with its own pool, as another
 * process would open it) shares one table and one time offset, which the TCK moves through {@link StoreTime}.
 */
abstract class JdbcStoreTck extends IdempotencyStoreTck {
    /** Added to the database's now by every store of the running test; starts at zero. */
    private final AtomicLong offset = new AtomicLong();
    private JdbcIdempotencyStore first;

    /** The database's JDBC URL (with user and password in it when it needs them). */
    protected abstract String url();

    /** The table this test class uses, unique per run. */
    protected abstract String table();

    static String uniqueTable() {
        return "idem_tck_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
    }

    /** Anything a database's TCK sets beyond the table and the time offset; nothing unless overridden. */
    protected JdbcIdempotencyStore.Builder configured(JdbcIdempotencyStore.Builder builder) {
        return builder;
    }

    private JdbcIdempotencyStore open() {
        return configured(JdbcIdempotencyStore.builder(url()).table(table()).createTable(true)
                .serverTimeOffset(offset::get)).build();
    }

    @Override
    protected IdempotencyStore createStore(MutableClock clock) {
        first = open();
        return first;
    }

    @Override
    protected StoreTime createStoreTime(MutableClock clock) {
        // The database's clock runs on its own; two shared cores make a step between two readings slow.
        return StoreTime.serverClockWithOffset(() -> first.serverNow(), offset, Duration.ofSeconds(2));
    }

    @Override
    protected Optional<IdempotencyStore> createPeerStore(MutableClock clock) {
        return Optional.of(open());
    }

    /** The sweeper's pass: deletes released, deleted and expired rows (any test's: they no longer count). */
    @Override
    protected boolean sweep(IdempotencyStore target) {
        ((JdbcIdempotencyStore) target).deleteExpiredBatch();
        return true;
    }

    @Test
    void keysAndOwnersBeyondAsciiAreKeptExactly() {
        String key = key("bestellung-\u00fc-\u6ce8\u6587-\ud83d\ude00");
        String owner = "worker-\u00e9-\ud83d\udc1d";
        assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key, "h", owner, LEASE, Duration.ZERO)));
        assertEquals(key, store.get(key).orElseThrow().key());
        assertEquals(owner, store.get(key).orElseThrow().owner());
        assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key.replace("\u00fc", "u"), "h", owner, LEASE, Duration.ZERO)),
                "a key that differs only in an accent is another key");
    }

    /**
     * How many fencing tokens one replay's claim draws: none where the claim reads the key's row before it writes
     * (a replay then writes nothing, not even to the counter).
     */
    protected int tokensAReplayDraws() {
        return 0;
    }

    @Test
    void aReplayDrawsOnlyTheTokensItsClaimStatementDraws() {
        String done = key("replayed");
        ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(done, "h", "a", LEASE, Duration.ZERO)));
        assertTrue(store.complete(done, first.fencingToken(), new byte[] {1}, Duration.ofHours(1)));
        for (int i = 0; i < 3; i++) {
            ClaimOutcome.Existing replay = assertInstanceOf(ClaimOutcome.Existing.class,
                    store.claim(new ClaimRequest(done, "h", "b", LEASE, Duration.ZERO)));
            assertEquals(first.fencingToken(), replay.record().fencingToken());
        }
        // Tokens come from one counter per table, which nothing else draws from during this test: a replay that
        // drew one (a write, on every database) leaves a gap.
        ClaimOutcome.Acquired next = assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key("next"), "h", "a", LEASE, Duration.ZERO)));
        assertEquals(first.fencingToken() + 1 + 3L * tokensAReplayDraws(), next.fencingToken(),
                "the replays drew " + tokensAReplayDraws() + " token(s) each");
    }

    /** Drops the table and its token counter (a sequence, or on SQLite a table). */
    static void dropTable(String url, String table) throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            boolean sqlite = Dialect.of(c.getMetaData().getDatabaseProductName()) == Dialect.SQLITE;
            s.execute((sqlite ? "DROP TABLE IF EXISTS " : "DROP SEQUENCE IF EXISTS ") + Dialect.tokens(table));
        }
    }
}
