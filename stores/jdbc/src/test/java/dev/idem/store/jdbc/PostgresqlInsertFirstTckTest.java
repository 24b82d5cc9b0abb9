package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.tck.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCK on PostgreSQL with every claim starting with the plain insert, the statement a store chooses while nearly
 * all of its claims meet new keys ({@link ClaimPaths}): that path must keep the whole contract on its own, its
 * second statement (the read that follows a conflict) included. {@link PostgresqlTckTest} runs the TCK on a new
 * store, which reads first.
 */
class PostgresqlInsertFirstTckTest extends JdbcStoreTck {
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

    @Override
    protected JdbcIdempotencyStore.Builder configured(JdbcIdempotencyStore.Builder builder) {
        return builder.claimStart(ClaimPaths.Start.INSERT_FIRST);
    }

    /**
     * Inserting first, a replay draws a token it does not use (the price of the path, with its second round trip,
     * which is why a store inserts first only while its keys are new); it still answers the record and writes no row.
     * The gap also shows that these claims did start with the insert.
     */
    @Test
    @Override
    void aReplayDrawsNoFencingToken() {
        String done = key("replayed");
        ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(done, "h", "a", LEASE, Duration.ZERO)));
        assertTrue(store.complete(done, first.fencingToken(), new byte[] {1}, Duration.ofHours(1)));
        for (int i = 0; i < 3; i++) {
            ClaimOutcome.Existing replay = assertInstanceOf(ClaimOutcome.Existing.class,
                    store.claim(new ClaimRequest(done, "h", "b", LEASE, Duration.ZERO)));
            assertEquals(first.fencingToken(), replay.record().fencingToken());
        }
        ClaimOutcome.Acquired next = assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key("next"), "h", "a", LEASE, Duration.ZERO)));
        assertEquals(first.fencingToken() + 4, next.fencingToken(), "each replay's insert drew a token");
    }
}
