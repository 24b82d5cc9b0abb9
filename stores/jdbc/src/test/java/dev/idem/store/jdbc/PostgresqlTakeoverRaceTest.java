package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On PostgreSQL a claim outside the transactional mode reads the key's row and inserts it when absent in one
 * statement, and takes over a row whose record is claimable by a second statement, guarded by the version read. These
 * tests race many claimers, from three stores with pools of their own (as three processes would be), on keys whose
 * rows are claimable: released, expired after completion, and in progress past their lease. Every key must be granted
 * exactly once, to a token larger than any it had, and every other claimer must see the winner's execution.
 */
class PostgresqlTakeoverRaceTest {
    private static final int KEYS = 40;
    private static final int CLAIMERS = 8;
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final AtomicLong offset = new AtomicLong();
    private final List<JdbcIdempotencyStore> stores = new ArrayList<>();
    private final ExecutorService claimers = Executors.newFixedThreadPool(CLAIMERS);

    @BeforeEach
    void open() {
        for (int i = 0; i < 3; i++) {
            stores.add(JdbcIdempotencyStore.builder(url).table(table).createTable(true).maximumPoolSize(4)
                    .serverTimeOffset(offset::get).build());
        }
    }

    @AfterEach
    void close() throws Exception {
        try {
            claimers.shutdownNow();
            assertTrue(claimers.awaitTermination(30, TimeUnit.SECONDS), "the claimers ended");
            stores.forEach(JdbcIdempotencyStore::close);
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    @Test
    @Timeout(120)
    void aReleasedKeyIsTakenOverExactlyOnce() throws Exception {
        race((store, previous) -> assertTrue(store.release(previous.key(), previous.fencingToken())),
                RecordState.IN_PROGRESS, false);
    }

    @Test
    @Timeout(120)
    void anExpiredCompletedKeyIsTakenOverExactlyOnce() throws Exception {
        race((store, previous) -> assertTrue(store.complete(previous.key(), previous.fencingToken(), new byte[] {1},
                Duration.ofHours(1))), RecordState.COMPLETED, true);
    }

    @Test
    @Timeout(120)
    void anExecutionPastItsLeaseIsTakenOverExactlyOnce() throws Exception {
        race((store, previous) -> { }, RecordState.IN_PROGRESS, true);
    }

    /** What each key's first claim granted. */
    private record Granted(String key, long fencingToken) {
    }

    /**
     * Claims every key once, leaves it with {@code leave}, moves the database's time two hours on when {@code
     * expire}, then lets {@link #CLAIMERS} threads claim every key in the same order, all at once.
     */
    private void race(BiConsumer<JdbcIdempotencyStore, Granted> leave, RecordState replacedState, boolean expire)
            throws Exception {
        String prefix = "idem:pg:takeover-race:" + UUID.randomUUID() + ":";
        List<Granted> firsts = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            String key = prefix + k;
            ClaimOutcome.Acquired first = assertInstanceOf(ClaimOutcome.Acquired.class,
                    stores.get(0).claim(request(key)));
            Granted granted = new Granted(key, first.fencingToken());
            leave.accept(stores.get(0), granted);
            firsts.add(granted);
        }
        if (expire) {
            offset.addAndGet(Duration.ofHours(2).toMillis()); // past the lease and past the completed record's expiry
        }

        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<ClaimOutcome>>> results = new ArrayList<>();
        for (int t = 0; t < CLAIMERS; t++) {
            JdbcIdempotencyStore store = stores.get(t % stores.size());
            results.add(claimers.submit(() -> {
                start.await();
                List<ClaimOutcome> outcomes = new ArrayList<>();
                for (Granted first : firsts) {
                    outcomes.add(store.claim(request(first.key())));
                }
                return outcomes;
            }));
        }
        start.countDown();
        List<List<ClaimOutcome>> byClaimer = new ArrayList<>();
        for (Future<List<ClaimOutcome>> result : results) {
            byClaimer.add(result.get(60, TimeUnit.SECONDS));
        }

        for (int k = 0; k < KEYS; k++) {
            Granted first = firsts.get(k);
            List<ClaimOutcome.Acquired> granted = new ArrayList<>();
            List<ClaimOutcome.Existing> refused = new ArrayList<>();
            for (List<ClaimOutcome> outcomes : byClaimer) {
                ClaimOutcome outcome = outcomes.get(k);
                if (outcome instanceof ClaimOutcome.Acquired acquired) {
                    granted.add(acquired);
                } else {
                    refused.add((ClaimOutcome.Existing) outcome);
                }
            }
            assertEquals(1, granted.size(), "claims granted of key " + k + ": " + granted);
            ClaimOutcome.Acquired winner = granted.get(0);
            assertTrue(winner.fencingToken() > first.fencingToken(), "the takeover's token is larger than the first's");
            if (replacedState == RecordState.IN_PROGRESS && expire) {
                IdempotencyRecord replaced = winner.replaced();
                assertEquals(first.fencingToken(), replaced == null ? -1 : replaced.fencingToken(),
                        "the takeover reports the execution it replaced");
            }
            for (ClaimOutcome.Existing other : refused) {
                assertEquals(RecordState.IN_PROGRESS, other.record().state());
                assertEquals(winner.fencingToken(), other.record().fencingToken(),
                        "every other claimer sees the winner's execution");
            }
            IdempotencyRecord stored = stores.get(1).get(first.key()).orElseThrow();
            assertEquals(winner.fencingToken(), stored.fencingToken());
            // The first owner's token is refused now: the takeover fenced it out.
            assertEquals(false, stores.get(2).complete(first.key(), first.fencingToken(), new byte[] {2},
                    Duration.ofHours(1)), "a completion carrying the replaced token is refused");
        }
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "hash", "owner-" + UUID.randomUUID(), LEASE, Duration.ZERO);
    }
}
