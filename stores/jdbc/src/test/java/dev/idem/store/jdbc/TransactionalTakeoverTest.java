package dev.idem.store.jdbc;

import dev.idem.IdempotencyAbandonedException;
import dev.idem.IdempotencyContext;
import dev.idem.OnAbandoned;
import dev.idem.StoreTransaction;
import dev.idem.core.AbandonedExecution;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.core.Reconciler;
import dev.idem.core.Reconciliation;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.testsupport.CapturedLog;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transactional call ({@code storeTransaction = REQUIRED}) whose claim takes over a plain call's claim in progress
 * whose lease passed (left by another method of the same scope, or by this method before it was made transactional,
 * whose owner died): the takeover is reported and {@code onAbandoned} applies, as on the plain path (SEMANTICS.md
 * section 9). Under FAIL and a failed RECONCILE nothing is stored: the transaction rolls back, and the abandoned claim
 * stays for the next call to meet. Time is the store's, moved by its test offset; nothing sleeps.
 */
class TransactionalTakeoverTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String DEAD_OWNER = "4242/dead-host";

    private final String url = TestPostgres.url();
    private final String table = JdbcStoreTck.uniqueTable();
    private final AtomicLong offset = new AtomicLong();
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    /** The reconciler's answers in turn: a Reconciliation, an Exception to throw, or a Callable giving one. */
    private final List<Object> answers = new CopyOnWriteArrayList<>();
    private final List<AbandonedExecution> asked = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    /** Refusals of abandoned claims are warnings an operator must see; asserted here, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");
    private JdbcIdempotencyStore store;
    private IdemEngine engine;

    @BeforeEach
    void open() {
        store = JdbcIdempotencyStore.builder(url).table(table).createTable(true).serverTimeOffset(offset::get).build();
        engine = IdemEngine.create(IdemSettings.custom().namespace("tx-takeover").store("pg", store)
                .defaultStore("pg").listener(events::add).reconciler(new Reconciler() {
                    @Override
                    public boolean reconciles(String operation) {
                        return true;
                    }

                    @Override
                    public Reconciliation reconcile(AbandonedExecution abandoned) throws Exception {
                        asked.add(abandoned);
                        Object next = answers.remove(0);
                        if (next instanceof Exception e) {
                            throw e;
                        }
                        if (next instanceof java.util.concurrent.Callable<?> answer) {
                            return (Reconciliation) answer.call();
                        }
                        return (Reconciliation) next;
                    }
                }).build());
    }

    @AfterEach
    void close() throws Exception {
        try {
            engine.close();
            store.close();
        } finally {
            JdbcStoreTck.dropTable(url, table);
        }
    }

    private IdempotentOperation<String> operation(StoreTransaction mode, OnAbandoned onAbandoned) {
        return engine.operation(IdempotencyPolicy.custom().operation("Orders#place-" + mode + "-" + onAbandoned)
                .scope("tx:orders").storeTransaction(mode).onAbandoned(onAbandoned).build(), String.class);
    }

    /**
     * What a plain call of the scope leaves when its owner dies inside the method: its claim in progress, with the key
     * and payload the transactional call will have, whose lease then passes.
     */
    private IdempotencyRecord abandonedPlainClaim(String order) throws Exception {
        AtomicReference<String> key = new AtomicReference<>();
        operation(StoreTransaction.NONE, OnAbandoned.TAKE_OVER).call(() -> {
            key.set(IdempotencyContext.current().orElseThrow().key());
            return "learnt the key";
        }, order);
        String payloadHash = store.get(key.get()).orElseThrow().payloadHash();
        store.delete(key.get());
        ClaimOutcome claimed = store.claim(new ClaimRequest(key.get(), payloadHash, DEAD_OWNER, LEASE, Duration.ZERO));
        assertInstanceOf(ClaimOutcome.Acquired.class, claimed);
        offset.addAndGet(LEASE.plusSeconds(1).toMillis()); // the dead owner's heartbeat never beats
        return store.get(key.get()).orElseThrow();
    }

    private String place(String order) {
        runs.incrementAndGet();
        return "placed " + order;
    }

    private IdempotencyEvent last(IdempotencyEventType type) {
        return events.stream().filter(e -> e.type() == type).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no " + type + " event in " + events));
    }

    @Test
    @Timeout(60)
    void takeOverRunsTheMethodAndReportsTheTakeover() throws Exception {
        IdempotencyRecord dead = abandonedPlainClaim("A-1");

        String result = operation(StoreTransaction.REQUIRED, OnAbandoned.TAKE_OVER).call(() -> place("A-1"), "A-1");

        assertEquals("placed A-1", result);
        assertEquals(1, runs.get());
        IdempotencyEvent takeover = last(IdempotencyEventType.TAKEOVER);
        assertTrue(takeover.detail().contains(DEAD_OWNER) && takeover.detail().contains("fencing token "
                + dead.fencingToken()), takeover.detail());
        assertTrue(takeover.fencingToken() > dead.fencingToken());
        assertEquals(RecordState.COMPLETED, store.get(dead.key()).orElseThrow().state());
    }

    @Test
    @Timeout(60)
    void failRefusesAndLeavesTheAbandonedClaimForAPersonToClear() throws Exception {
        IdempotencyRecord dead = abandonedPlainClaim("A-2");
        IdempotentOperation<String> op = operation(StoreTransaction.REQUIRED, OnAbandoned.FAIL);

        IdempotencyAbandonedException refused = assertThrows(IdempotencyAbandonedException.class,
                () -> op.call(() -> place("A-2"), "A-2"));

        assertTrue(refused.getMessage().contains(dead.key()) && refused.getMessage().contains(DEAD_OWNER),
                refused.getMessage());
        assertEquals(0, runs.get(), "the method did not run");
        assertTrue(last(IdempotencyEventType.ABANDONED).fencingToken() > dead.fencingToken());
        log.assertLogged(Level.WARNING, "ABANDONED");
        assertEquals(dead, store.get(dead.key()).orElseThrow(), "the refusal rolled back: the abandoned claim stays");
        assertThrows(IdempotencyAbandonedException.class, () -> op.call(() -> place("A-2"), "A-2"),
                "and the next call is refused too");
        assertEquals(0, runs.get());
    }

    @Test
    @Timeout(60)
    void reconcileCommitsTheReconcilersAnswerWithoutRunningTheMethod() throws Exception {
        IdempotencyRecord dead = abandonedPlainClaim("A-3");
        answers.add(Reconciliation.happened("placed A-3 before it died"));
        IdempotentOperation<String> op = operation(StoreTransaction.REQUIRED, OnAbandoned.RECONCILE);

        assertEquals("placed A-3 before it died", op.call(() -> place("A-3"), "A-3"));

        assertEquals(0, runs.get(), "the method did not run");
        assertEquals(dead.fencingToken(), asked.get(0).fencingToken());
        assertEquals(DEAD_OWNER, asked.get(0).owner());
        IdempotencyEvent reconciled = last(IdempotencyEventType.RECONCILED);
        IdempotencyRecord stored = store.get(dead.key()).orElseThrow();
        assertEquals(RecordState.COMPLETED, stored.state());
        assertEquals(reconciled.fencingToken(), stored.fencingToken(), "the answer was committed under the new claim");
        assertEquals("placed A-3 before it died", op.call(() -> place("A-3"), "A-3"), "duplicates replay it");
        assertEquals(1, asked.size());
    }

    @Test
    @Timeout(60)
    void aReconcilerSayingItDidNotHappenLetsTheMethodRun() throws Exception {
        abandonedPlainClaim("A-4");
        answers.add(Reconciliation.didNotHappen());

        assertEquals("placed A-4", operation(StoreTransaction.REQUIRED, OnAbandoned.RECONCILE)
                .call(() -> place("A-4"), "A-4"));

        assertEquals(1, runs.get());
        assertTrue(last(IdempotencyEventType.TAKEOVER).detail().contains("did not happen"));
    }

    @Test
    @Timeout(60)
    void aFailedReconciliationRollsBackAndTheNextCallAsksAgain() throws Exception {
        IdempotencyRecord dead = abandonedPlainClaim("A-5");
        answers.add(new IllegalStateException("the order service is down"));
        IdempotentOperation<String> op = operation(StoreTransaction.REQUIRED, OnAbandoned.RECONCILE);

        assertThrows(IdempotencyAbandonedException.class, () -> op.call(() -> place("A-5"), "A-5"));

        assertEquals(0, runs.get());
        assertEquals(dead, store.get(dead.key()).orElseThrow(), "nothing stored: the abandoned claim stays");
        answers.add(Reconciliation.happened("placed A-5 before it died"));
        assertEquals("placed A-5 before it died", op.call(() -> place("A-5"), "A-5"));
        assertEquals(2, asked.size(), "asked again by the next call");
        assertEquals(0, runs.get());
    }

    @Test
    @Timeout(60)
    void anAnswerThatCannotBeCommittedFailsClosedInsteadOfBeingHandedOutUnrecorded() throws Exception {
        IdempotencyRecord dead = abandonedPlainClaim("A-6");
        answers.add((java.util.concurrent.Callable<Reconciliation>) () -> {
            // The reconciler breaks the transaction it runs in: PostgreSQL then refuses every later statement of it.
            try (java.sql.Statement broken = JdbcTransactions.connection().createStatement()) {
                broken.execute("SELECT 1 / 0");
            } catch (java.sql.SQLException expected) {
                // the transaction is aborted now
            }
            return Reconciliation.happened("placed A-6 before it died");
        });
        IdempotentOperation<String> op = operation(StoreTransaction.REQUIRED, OnAbandoned.RECONCILE);

        IdempotencyAbandonedException e = assertThrows(IdempotencyAbandonedException.class,
                () -> op.call(() -> place("A-6"), "A-6"), "not handed an answer that was not recorded");

        assertTrue(e.getMessage().contains("could not be committed"), e.getMessage());
        assertEquals(0, runs.get());
        assertTrue(events.stream().noneMatch(ev -> ev.type() == IdempotencyEventType.RECONCILED), events.toString());
        assertEquals(dead, store.get(dead.key()).orElseThrow(), "rolled back: the abandoned claim stays");
        answers.add(Reconciliation.happened("placed A-6 before it died"));
        assertEquals("placed A-6 before it died", op.call(() -> place("A-6"), "A-6"), "the next call asks again");
        assertEquals(2, asked.size());
        assertEquals(0, runs.get());
    }
}
