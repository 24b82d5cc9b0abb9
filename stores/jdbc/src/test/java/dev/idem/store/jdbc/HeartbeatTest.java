package dev.idem.store.jdbc;

import dev.idem.IdempotencyInProgressException;
import dev.idem.OnInProgress;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.testsupport.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease heartbeat across processes on PostgreSQL: a worker JVM runs an execution three times as long as its
 * lease; meanwhile this JVM's claims of the key (through an engine, and straight at the store) keep meeting it
 * IN_PROGRESS under the same token, never taking it over, and afterwards replay its result.
 */
class HeartbeatTest extends CrossProcessSuite {
    private static final long LEASE_MILLIS = 1_500;


    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void anExecutionLongerThanItsLeaseIsNeverTakenOverWhileItsOwnerLives() throws Exception {
        createTables(false);
        String scope = "suite:heartbeat-" + UUID.randomUUID();
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("JdbcWorker#run").scope(scope)
                .lease(Duration.ofMillis(LEASE_MILLIS)).ttl("10m").onInProgress(OnInProgress.THROW).build();
        AtomicInteger ranHere = new AtomicInteger();
        try (ChildJvm owner = JdbcWorker.start("run", "url=" + url, "table=" + table, "scope=" + scope,
                "lease=" + LEASE_MILLIS, "key=k", "work=" + 3 * LEASE_MILLIS);
             JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(url).table(table).build();
             IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("suite").store("jdbc", store)
                     .defaultStore("jdbc").build())) {
            String[] started = owner.next(l -> l.startsWith("STARTED "), Duration.ofSeconds(60)).split(" ");
            String key = started[2];
            long token = Long.parseLong(started[3]);
            IdempotentOperation<String> op = engine.operation(policy, String.class);

            int checks = 0;
            String result = null;
            while (result == null) {
                try {
                    result = op.call(() -> "ran here " + ranHere.incrementAndGet(), "k");
                } catch (IdempotencyInProgressException expected) {
                    checks++;
                    ClaimOutcome outcome = store.claim(new ClaimRequest(key, store.get(key).orElseThrow()
                            .payloadHash(), "this-test", Duration.ofMillis(LEASE_MILLIS), Duration.ZERO));
                    ClaimOutcome.Existing existing = assertInstanceOf(ClaimOutcome.Existing.class, outcome,
                            "the running execution is never taken over");
                    if (existing.record().state() == RecordState.IN_PROGRESS) {
                        assertEquals(token, existing.record().fencingToken());
                    }
                    Thread.sleep(100); // a sample every 100 ms; the outcome never depends on it
                }
            }
            IdempotencyRecord done = store.get(key).orElseThrow();
            long ranFor = Duration.between(done.startedAt(), done.completedAt()).toMillis();
            assertTrue(ranFor >= 3 * LEASE_MILLIS, "the execution ran three leases long, by the database: " + ranFor);
            assertEquals(token, done.fencingToken(), "and completed under the token it started with");
            assertTrue(checks > 0);
            assertEquals(0, ranHere.get(), "this JVM never ran the method");
            String reported = owner.next(l -> l.startsWith("RESULT "), Duration.ofSeconds(30)).split(" ")[2];
            assertEquals(reported, result, "the owner's result is replayed");
            owner.finish(Duration.ofSeconds(30));
        }
    }
}
