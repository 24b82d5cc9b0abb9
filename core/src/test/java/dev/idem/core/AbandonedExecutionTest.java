package dev.idem.core;

import dev.idem.IdempotencyAbandonedException;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.OnAbandoned;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.Serializable;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 9, {@code onAbandoned}: a peer engine claims a key and stalls inside the method (its
 * heartbeat never beats), the shared clock moves past its lease, and a caller on another engine over the same
 * store meets the abandoned claim. No sleeps: the peer is held on a latch and time is the test's clock.
 */
class AbandonedExecutionTest {
    record Receipt(String order, int run) implements Serializable {
    }

    /** What the stalled execution saw in {@link IdempotencyContext}, as it would pass it downstream. */
    record Seen(String key, long fencingToken) {
    }

    /** Counts runs; a run on a peer's thread may be held inside the method, as an owner that died there. */
    static class Orders {
        final AtomicInteger runs = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Seen> seen = new AtomicReference<>();
        volatile boolean hang;

        Receipt run(String order) throws InterruptedException {
            int run = runs.incrementAndGet();
            if (hang) {
                hang = false;
                IdempotencyContext context = IdempotencyContext.current().orElseThrow();
                seen.set(new Seen(context.key(), context.fencingToken()));
                entered.countDown();
                assertTrue(release.await(30, TimeUnit.SECONDS));
            }
            return new Receipt(order, run);
        }

        @Idempotent(scope = "orders:take-over")
        Receipt takeOver(@IdempotencyKey String order) throws InterruptedException {
            return run(order);
        }

        @Idempotent(scope = "orders:reconcile", onAbandoned = OnAbandoned.RECONCILE)
        Receipt reconcile(@IdempotencyKey String order) throws InterruptedException {
            return run(order);
        }

        @Idempotent(scope = "orders:reconcile-optional", onAbandoned = OnAbandoned.RECONCILE)
        Optional<Receipt> reconcileOptional(@IdempotencyKey String order) throws InterruptedException {
            return Optional.of(run(order));
        }

        @Idempotent(scope = "orders:reconcile-stage", onAbandoned = OnAbandoned.RECONCILE)
        CompletionStage<Receipt> reconcileStage(@IdempotencyKey String order) throws InterruptedException {
            return CompletableFuture.completedFuture(run(order));
        }

        @Idempotent(scope = "orders:fail", onAbandoned = OnAbandoned.FAIL)
        Receipt refuse(@IdempotencyKey String order) throws InterruptedException {
            return run(order);
        }
    }

    /** A reconciler the test scripts: its answers in order, and what it was asked. */
    static final class ScriptedReconciler implements Reconciler {
        final List<AbandonedExecution> asked = new CopyOnWriteArrayList<>();
        final List<Object> answers = new CopyOnWriteArrayList<>(); // a Reconciliation, or an Exception to throw

        @Override
        public boolean reconciles(String operation) {
            return operation.contains("#reconcile");
        }

        @Override
        public Reconciliation reconcile(AbandonedExecution abandoned) throws Exception {
            asked.add(abandoned);
            Object next = answers.remove(0);
            if (next instanceof Exception) {
                throw (Exception) next;
            }
            return (Reconciliation) next;
        }
    }

    private final ScriptedReconciler reconciler = new ScriptedReconciler();
    private final EngineFixture fx = new EngineFixture(b -> b.reconciler(reconciler));
    private final EngineFixture peer = new EngineFixture(fx.store, b -> b.clock(fx.clock).reconciler(reconciler));
    private final Orders orders = new Orders();
    /** Abandoned claims and fenced completions are warnings an operator must see; asserted here, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");
    private final ExecutorService peerThread = Executors.newSingleThreadExecutor();
    private Future<Object> peerCall;

    @AfterEach
    void tearDown() throws Throwable {
        orders.release.countDown();
        if (peerCall != null) {
            peerCall.get(30, TimeUnit.SECONDS);
        }
        peerThread.shutdownNow();
        peer.close();
        fx.close();
    }

    /** The peer claims {@code method("A-1")} and stalls inside it; then its lease passes. Returns the record it left. */
    private IdempotencyRecord peerDiesInside(String method) throws Exception {
        orders.hang = true;
        peerCall = peerThread.submit(() -> {
            try {
                return peer.call(orders, method, "A-1");
            } catch (Exception e) {
                throw e;
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
        assertTrue(orders.entered.await(30, TimeUnit.SECONDS), "the peer is running the method");
        IdempotencyRecord dead = fx.store.get(orders.seen.get().key()).orElseThrow();
        assertEquals(RecordState.IN_PROGRESS, dead.state());
        fx.clock.advance(Duration.ofSeconds(31)); // past the 30 s lease; the peer's heartbeat never beat
        return dead;
    }

    /** Lets the stalled peer finish, and returns what its engine reported: its completion must have been fenced. */
    private void peerWakesUpAndIsFenced() throws Exception {
        orders.release.countDown();
        peerCall.get(30, TimeUnit.SECONDS);
        assertEquals(1, peer.count(IdempotencyEventType.LEASE_LOST), "the dead owner's late completion is refused");
        assertEquals(0, peer.count(IdempotencyEventType.EXECUTED));
        assertWarned(IdempotencyEventType.LEASE_LOST);
    }

    /** A warning of {@code type} naming the stalled call's key was logged. */
    private void assertWarned(IdempotencyEventType type) {
        String key = orders.seen.get().key();
        List<String> lines = log.lines(Level.WARNING);
        assertTrue(lines.stream().anyMatch(l -> l.contains(type.name()) && l.contains(key)),
                "expected a " + type + " warning naming " + key + "; logged: " + lines);
    }

    @Test
    @Timeout(60)
    void takeOverRunsTheMethodAgainAndReportsTheTakeover() throws Throwable {
        IdempotencyRecord dead = peerDiesInside("takeOver");

        Receipt receipt = (Receipt) call("takeOver", "A-1");

        assertEquals(new Receipt("A-1", 2), receipt, "the method ran a second time, for this caller");
        IdempotencyEvent takeover = fx.last(IdempotencyEventType.TAKEOVER);
        assertTrue(takeover.detail().contains(dead.owner()), takeover.detail());
        assertTrue(takeover.fencingToken() > dead.fencingToken());
        assertEquals(0, fx.count(IdempotencyEventType.RECONCILED));
        assertTrue(reconciler.asked.isEmpty(), "TAKE_OVER asks nobody");
        peerWakesUpAndIsFenced();
        assertEquals(new Receipt("A-1", 2), call("takeOver", "A-1"), "duplicates get the takeover's result");
    }

    @Test
    @Timeout(60)
    void reconcileStoresTheReconcilersAnswerWithoutRunningTheMethod() throws Throwable {
        IdempotencyRecord dead = peerDiesInside("reconcile");
        reconciler.answers.add(Reconciliation.happened(new Receipt("A-1", 100)));

        Receipt receipt = (Receipt) call("reconcile", "A-1");

        assertEquals(new Receipt("A-1", 100), receipt);
        assertEquals(1, orders.runs.get(), "only the dead owner ever ran the method");
        AbandonedExecution asked = reconciler.asked.get(0);
        assertEquals("dev.idem.core.AbandonedExecutionTest$Orders#reconcile", asked.operation());
        assertEquals(orders.seen.get().key(), asked.key(), "the key the dead execution saw in IdempotencyContext");
        assertEquals(orders.seen.get().fencingToken(), asked.fencingToken(), "and its fencing token");
        assertEquals(dead.owner(), asked.owner());
        assertEquals(dead.startedAt(), asked.startedAt());
        assertEquals(dead.leaseUntil(), asked.leaseUntil());
        assertTrue(asked.claimToken() > asked.fencingToken());
        IdempotencyEvent reconciled = fx.last(IdempotencyEventType.RECONCILED);
        assertEquals(asked.claimToken(), reconciled.fencingToken());
        assertEquals(0, fx.count(IdempotencyEventType.TAKEOVER));
        assertEquals(RecordState.COMPLETED, fx.store.get(asked.key()).orElseThrow().state());

        peerWakesUpAndIsFenced();
        assertEquals(new Receipt("A-1", 100), peer.call(orders, "reconcile", "A-1"),
                "another engine replays the reconciled result from the store");
        assertEquals(1, orders.runs.get());
        assertEquals(1, reconciler.asked.size(), "asked once, for one takeover");
    }

    @Test
    @Timeout(60)
    void aReconciledAnswerIsReturnedInTheMethodsOwnShape() throws Throwable {
        peerDiesInside("reconcileOptional");
        reconciler.answers.add(Reconciliation.happened(Optional.of(new Receipt("A-1", 7))));
        assertEquals(Optional.of(new Receipt("A-1", 7)), call("reconcileOptional", "A-1"));
        assertEquals(1, orders.runs.get());
        peerWakesUpAndIsFenced();
    }

    @Test
    @Timeout(60)
    void aReconciledStageCompletesWithTheAnswer() throws Throwable {
        peerDiesInside("reconcileStage");
        reconciler.answers.add(Reconciliation.happened(new Receipt("A-1", 8)));
        CompletionStage<?> stage = (CompletionStage<?>) call("reconcileStage", "A-1");
        assertEquals(new Receipt("A-1", 8), stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertEquals(1, orders.runs.get());
        peerWakesUpAndIsFenced();
    }

    @Test
    @Timeout(60)
    void aReconcilerSayingItDidNotHappenLetsTheMethodRun() throws Throwable {
        peerDiesInside("reconcile");
        reconciler.answers.add(Reconciliation.didNotHappen());

        assertEquals(new Receipt("A-1", 2), call("reconcile", "A-1"));

        assertEquals(1, reconciler.asked.size());
        assertTrue(fx.last(IdempotencyEventType.TAKEOVER).detail().contains("did not happen"));
        assertEquals(0, fx.count(IdempotencyEventType.RECONCILED));
        peerWakesUpAndIsFenced();
    }

    @Test
    @Timeout(60)
    void aReconcilerThatThrowsFailsClosedAndTheNextCallAsksAgain() throws Throwable {
        peerDiesInside("reconcile");
        reconciler.answers.add(new java.io.IOException("orders service unreachable"));

        IdempotencyAbandonedException e = assertThrows(IdempotencyAbandonedException.class,
                () -> call("reconcile", "A-1"));

        String key = orders.seen.get().key();
        assertTrue(e.getMessage().contains(key), e.getMessage());
        assertTrue(e.getMessage().contains("orders service unreachable"), e.getMessage());
        assertInstanceOf(java.io.IOException.class, e.getCause());
        assertEquals(1, orders.runs.get(), "the method did not run");
        assertEquals(1, fx.count(IdempotencyEventType.ABANDONED));
        assertWarned(IdempotencyEventType.ABANDONED);
        IdempotencyRecord held = fx.store.get(key).orElseThrow();
        assertEquals(RecordState.IN_PROGRESS, held.state(), "not released: an absent key would run unasked");

        fx.clock.advance(Duration.ofMillis(2)); // the handed-back claim's lease is a millisecond
        reconciler.answers.add(Reconciliation.happened(new Receipt("A-1", 100)));
        assertEquals(new Receipt("A-1", 100), call("reconcile", "A-1"));
        assertEquals(2, reconciler.asked.size(), "the next call asked again");
        assertEquals(1, orders.runs.get());
        peerWakesUpAndIsFenced();
    }

    @Test
    @Timeout(60)
    void anAnswerOfTheWrongTypeFailsClosedAndStoresNothing() throws Throwable {
        peerDiesInside("reconcile");
        reconciler.answers.add(Reconciliation.happened("not a receipt"));

        IdempotencyAbandonedException e = assertThrows(IdempotencyAbandonedException.class,
                () -> call("reconcile", "A-1"));

        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
        assertTrue(e.getMessage().contains(orders.seen.get().key()), e.getMessage());
        assertEquals(RecordState.IN_PROGRESS, fx.store.get(orders.seen.get().key()).orElseThrow().state());
        assertEquals(0, fx.count(IdempotencyEventType.RECONCILED));
        assertEquals(1, orders.runs.get());
        peerWakesUpAndIsFenced();
    }

    @Test
    @Timeout(60)
    void failRefusesNamingTheKeyUntilAPersonClearsIt() throws Throwable {
        IdempotencyRecord dead = peerDiesInside("refuse");
        String key = orders.seen.get().key();

        IdempotencyAbandonedException e = assertThrows(IdempotencyAbandonedException.class,
                () -> call("refuse", "A-1"));

        assertTrue(e.getMessage().contains(key), e.getMessage());
        assertTrue(e.getMessage().contains(dead.owner()), e.getMessage());
        assertTrue(e.getMessage().contains("delete the record"), e.getMessage());
        assertEquals(1, orders.runs.get(), "the method did not run again");
        assertEquals(1, fx.count(IdempotencyEventType.ABANDONED));
        assertWarned(IdempotencyEventType.ABANDONED);
        assertEquals(RecordState.FAILED, fx.store.get(key).orElseThrow().state());

        peerWakesUpAndIsFenced();
        IdempotencyAbandonedException again = assertThrows(IdempotencyAbandonedException.class,
                () -> peer.call(orders, "refuse", "A-1"));
        assertTrue(again.getMessage().contains(key), "later calls, from any engine, get the same refusal");
        assertEquals(1, peer.count(IdempotencyEventType.FAILURE_REPLAYED));
        assertEquals(1, orders.runs.get());

        fx.store.delete(key); // the person decided
        assertEquals(new Receipt("A-1", 2), call("refuse", "A-1"));
    }

    @Test
    void reconcileWithoutAReconcilerIsAConfigurationErrorBeforeTheMethodRuns() {
        try (EngineFixture bare = new EngineFixture()) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> bare.call(orders, "reconcile", "A-1"));
            assertTrue(e.getMessage().contains("Orders#reconcile"), e.getMessage());
            assertTrue(e.getMessage().contains("onAbandoned = RECONCILE"), e.getMessage());
            assertTrue(e.getMessage().contains("none"), e.getMessage());
        }
        assertEquals(0, orders.runs.get());
    }

    @Test
    void twoReconcilersForOneOperationAreAConfigurationError() {
        try (EngineFixture twice = new EngineFixture(b -> b.reconciler(reconciler).reconciler(new ScriptedReconciler()))) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> twice.call(orders, "reconcile", "A-1"));
            assertTrue(e.getMessage().contains("2 do"), e.getMessage());
        }
        assertEquals(0, orders.runs.get());
    }

    @Test
    void programmaticOperationsDeclareItOnThePolicy() {
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("jobs#nightly").scope("jobs:nightly")
                .onAbandoned(OnAbandoned.FAIL).build();
        assertEquals(OnAbandoned.FAIL, policy.onAbandoned());
        assertEquals(OnAbandoned.FAIL, IdempotencyPolicy.from(policy).build().onAbandoned());
        assertEquals(OnAbandoned.TAKE_OVER, IdempotencyPolicy.ofDefaults().onAbandoned());
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.operation(IdempotencyPolicy.from(policy).operation("jobs#other")
                        .scope("jobs:other").onAbandoned(OnAbandoned.RECONCILE).build(), String.class));
        assertTrue(e.getMessage().contains("jobs#other"), e.getMessage());
    }

    @Test
    void reconcilersAreFoundInMetaInfServicesLikeListeners(@TempDir Path dir) throws Exception {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(Reconciler.class.getName()), ListedReconciler.class.getName() + "\n");
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Thread.currentThread().setContextClassLoader(loader);
            List<Reconciler> found = IdemSettings.fromEnvironment(Map.of()).reconcilers();
            assertEquals(1, found.size());
            assertInstanceOf(ListedReconciler.class, found.get(0));
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
        assertTrue(IdemSettings.ofDefaults().reconcilers().isEmpty());
    }

    /** Listed in a services file by the test above. */
    public static final class ListedReconciler implements Reconciler {
        @Override
        public boolean reconciles(String operation) {
            return false;
        }

        @Override
        public Reconciliation reconcile(AbandonedExecution abandoned) {
            return Reconciliation.didNotHappen();
        }
    }

    @Test
    void reconciliationsSayWhatTheyAre() {
        assertFalse(Reconciliation.didNotHappen().happened());
        assertNull(Reconciliation.didNotHappen().result());
        assertTrue(Reconciliation.happened(null).happened());
        assertEquals("Reconciliation[happened]", Reconciliation.happened(1).toString());
    }

    private Object call(String method, String order) throws Exception {
        try {
            return fx.call(orders, method, order);
        } catch (Exception e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
