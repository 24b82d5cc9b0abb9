package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store on PostgreSQL chooses its claims' first statement from what recent claims found ({@link ClaimPaths}), seen
 * from outside through the token counter: a claim that starts with the insert draws a token even when the key has a
 * row (a replay), one that reads first draws none then.
 */
class PostgresqlClaimPathsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).build();

    @AfterEach
    void close() throws Exception {
        store.close();
        JdbcStoreTck.dropTable(url, table);
    }

    @Test
    void aRunOfNewKeysSwitchesToInsertingFirstAndAFewReplaysSwitchBack() {
        String replayed = key();
        long done = acquire(replayed);
        assertTrue(store.complete(replayed, done, new byte[] {1}, Duration.ofHours(1)));
        replay(replayed, 5);
        long before = acquire(key());
        assertEquals(done + 1, before, "a new store reads first: its replays drew no token");

        for (int i = 0; i < 40; i++) {
            acquire(key());
        }
        long start = acquire(key());
        replay(replayed, 10);
        long after = acquire(key());
        long drawnByReplays = after - start - 1;
        assertTrue(drawnByReplays >= 1 && drawnByReplays < 10, "after 42 new keys the first replays started with the"
                + " insert, and by the tenth the store read first again: " + drawnByReplays + " of 10 drew a token");

        replay(replayed, 10);
        assertEquals(after + 1, acquire(key()), "reading first again: replays draw no token");
    }

    private long acquire(String key) {
        return assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key, "h", "a", LEASE, Duration.ZERO))).fencingToken();
    }

    private void replay(String key, int times) {
        for (int i = 0; i < times; i++) {
            assertInstanceOf(ClaimOutcome.Existing.class,
                    store.claim(new ClaimRequest(key, "h", "b", LEASE, Duration.ZERO)));
        }
    }

    private static String key() {
        return "idem:test:paths:" + UUID.randomUUID();
    }
}
