package dev.idem.tests;

import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyStoreException;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.core.WeavingCheck;
import dev.idem.core.sharing.ClaimWatchingStore;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same scenarios under every way of attaching Idem: these classes are woven at compile time in one module and
 * at load time in the other, and each test calls the annotated methods directly, exactly as application code does.
 */
class WeavingScenariosTest {
    private final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    /** The frames (class simple name and method) each REPLAYED event was emitted from, innermost first. */
    private final List<List<String>> replayedFrom = new CopyOnWriteArrayList<>();
    private final ArticleService service = new ArticleService();
    /** The real store, which a test also drives directly, as another process would. */
    private final InMemoryIdempotencyStore backend = new InMemoryIdempotencyStore(clock);
    private final ClaimWatchingStore watched = new ClaimWatchingStore(backend, Duration.ofSeconds(30));
    private final ExecutorService background = Executors.newSingleThreadExecutor();
    private IdemEngine engine;
    private IdemEngine previous;

    @BeforeEach
    void installEngine() {
        engine = IdemEngine.create(IdemSettings.custom()
                .namespace("weaving")
                .clock(clock)
                .store("memory", watched)
                .store("down", new DownStore())
                .listener(e -> {
                    events.add(e);
                    if (e.type() == IdempotencyEventType.REPLAYED) {
                        replayedFrom.add(StackWalker.getInstance().walk(frames -> frames
                                .map(f -> f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1)
                                        + "." + f.getMethodName())
                                .toList()));
                    }
                })
                .build());
        previous = Idem.install(engine);
    }

    @AfterEach
    void restoreEngine() {
        background.shutdownNow();
        Idem.install(previous);
        engine.close();
    }

    private long count(IdempotencyEventType type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    @Test
    void everyAnnotatedMethodIsWoven() {
        WeavingCheck.requireWoven(ArticleService.class);
        String mode = System.getProperty("weaving.mode");
        assertTrue(mode != null && !mode.isEmpty(), "the build says which weaving this run exercises");
    }

    @Test
    void aRepeatedCallRunsOnceAndReplays() {
        ArticleService.Article first = service.generate("rust", 1);
        ArticleService.Article second = service.generate("rust", 1);

        assertEquals(first, second);
        assertEquals(1, service.runs.get());
        assertTrue(first.key().startsWith("idem:weaving:weaving:daily:"), first.key());
        assertEquals(1, count(IdempotencyEventType.EXECUTED));
    }

    @Test
    void methodsOfEveryArityWithPrimitiveAndNullArgumentsRunWithTheirArgumentsAndReplay() {
        assertEquals(1, service.noParameters());
        assertEquals(1, service.noParameters(), "replayed");

        String eight = service.eightParameters((byte) 1, (short) 2, 'c', 4, 5L, 6.5f, 7.25, true);
        assertEquals("2:1,2,c,4,5,6.5,7.25,true", eight, "the body got every argument as passed");
        assertEquals(eight, service.eightParameters((byte) 1, (short) 2, 'c', 4, 5L, 6.5f, 7.25, true));
        assertEquals("3:1,2,c,4,5,6.5,7.25,false",
                service.eightParameters((byte) 1, (short) 2, 'c', 4, 5L, 6.5f, 7.25, false), "another key");
        assertEquals(3, service.runs.get());
        service.publish(null);
        service.publish(null);
        assertEquals(4, service.runs.get(), "a null argument is bound like any other: the call is idempotent too");

        int staticRuns = ArticleService.STATIC_RUNS.get();
        String nine = ArticleService.nineParameters((byte) 1, (short) 2, 'c', 4, 5L, 6.5f, 7.25, true, "t");
        assertEquals((staticRuns + 1) + ":1,2,c,4,5,6.5,7.25,true,t", nine, "the body got every argument as passed");
        assertEquals(nine, ArticleService.nineParameters((byte) 1, (short) 2, 'c', 4, 5L, 6.5f, 7.25, true, "t"));
        ArticleService.nineParameters((byte) 1, (short) 2, 'c', 4, 5L, 6.5f, 7.5, true, "t");
        assertEquals(staticRuns + 2, ArticleService.STATIC_RUNS.get(), "one run per distinct call");
        assertEquals(4, count(IdempotencyEventType.REPLAYED));
    }

    @Test
    void aKeptResultIsAnsweredThroughOneCallOfTheMethodsHandle() {
        ArticleService.Article first = service.generate("rust", 1); // kept at once: the store is another process's
        service.generate("rust", 1);
        ArticleService.Article third = service.generate("rust", 1);

        assertEquals(first, third);
        assertEquals(1, service.runs.get(), "the body ran once");
        assertEquals(List.of("from this JVM's results", "from this JVM's results"), events.stream()
                .filter(e -> e.type() == IdempotencyEventType.REPLAYED).map(IdempotencyEvent::detail).toList());
        // Every execution reaches the engine through the front-end contract, once: one advice per method.
        for (List<String> keptFrom : replayedFrom) {
            assertEquals(1, keptFrom.stream().filter("PlannedMethod.call"::equals).count(), keptFrom.toString());
        }
        assertEquals(2, replayedFrom.size());
    }

    @Test
    void aKeptResultPastItsWindowIsNotAnsweredTheCallRunsAgainAndIsReportedLate() {
        service.generate("rust", 1);
        service.generate("rust", 1); // kept from here on
        clock.advance(Duration.ofMinutes(4));
        assertEquals(1, service.generate("rust", 1).edition(), "within the window, answered from what is kept");
        clock.advance(Duration.ofMinutes(2));

        assertEquals(2, service.generate("rust", 1).edition());
        assertEquals(1, count(IdempotencyEventType.LATE_DUPLICATE));
        assertEquals(2, service.runs.get());
    }

    @Test
    void unannotatedMethodsAreLeftAlone() {
        service.plain("rust");
        service.plain("rust");
        assertEquals(2, service.runs.get());
        assertTrue(events.isEmpty());
    }

    @Test
    @Timeout(60)
    void concurrentIdenticalCallsAreCoalesced() throws Exception {
        int callers = 16;
        service.during = () -> {
            // The running call holds until every other caller has joined it; past the deadline it fails loudly.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (count(IdempotencyEventType.COALESCED) < callers - 1) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + count(IdempotencyEventType.COALESCED) + " of "
                            + (callers - 1) + " callers joined the running call within 30 s");
                }
                Thread.onSpinWait();
            }
        };
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<ArticleService.Article>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return service.generate("go", 2);
                }));
            }
            start.countDown();
            for (Future<ArticleService.Article> r : results) {
                assertEquals(1, r.get(40, TimeUnit.SECONDS).edition());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, service.runs.get());
        assertEquals(callers - 1, count(IdempotencyEventType.COALESCED));
    }

    @Test
    void theSameKeyWithAnotherPayloadIsAConflict() {
        service.order("order-1", 2);
        assertThrows(IdempotencyConflictException.class, () -> service.order("order-1", 5));
        assertEquals(1, service.runs.get());
    }

    @Test
    void anUnreachableStoreFailsClosedWithoutRunningTheMethod() {
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> service.againstADownStore("rust"));
        assertTrue(e.getMessage().contains("ArticleService#againstADownStore"), e.getMessage());
        assertEquals(0, service.runs.get());
    }

    @Test
    void afterTheWindowTheCallRunsAgainAndIsReportedLate() {
        service.generate("rust", 1);
        clock.advance(Duration.ofMinutes(6));

        assertEquals(2, service.generate("rust", 1).edition());
        assertEquals(1, count(IdempotencyEventType.LATE_DUPLICATE));
    }

    @Test
    @Timeout(30) // the async method completes on the common pool
    void optionalVoidStaticAndAsyncMethodsAreDeduplicated() throws Exception {
        Optional<ArticleService.Article> found = service.find("rust");
        assertEquals(found, service.find("rust"));
        ArticleService.Article async = service.generateAsync("x").get(5, TimeUnit.SECONDS);
        assertEquals(new ArticleService.Article("x", 0, 2, ""), async, "find ran first, so this is the second run");
        assertEquals(async, service.generateAsync("x").get(5, TimeUnit.SECONDS), "replayed, not run again");
        service.publish("rust");
        service.publish("rust");
        assertEquals(3, service.runs.get(), "find once, generateAsync once, publish once");
        int staticRuns = ArticleService.staticCount("a");
        assertEquals(staticRuns, ArticleService.staticCount("a"), "a static method is deduplicated too");
        assertEquals(staticRuns + 1, ArticleService.staticCount("b"), "and runs for another argument");
    }

    /**
     * The record a call of {@code generate(topic, day)} leaves in a throwaway engine with this test's namespace and
     * clock but a store of its own: the key, payload hash and encoded result another process would have, learned
     * without leaving a local result in the engine under test.
     */
    private IdempotencyRecord recordOfAnotherProcess(String topic, int day) {
        InMemoryIdempotencyStore elsewhere = new InMemoryIdempotencyStore(clock);
        IdemEngine probe = IdemEngine.create(IdemSettings.custom().namespace("weaving").clock(clock)
                .store("memory", elsewhere).build());
        Idem.install(probe);
        try {
            ArticleService.Article article = new ArticleService().generate(topic, day);
            return elsewhere.get(article.key()).orElseThrow();
        } finally {
            Idem.install(engine);
            probe.close();
        }
    }

    private ClaimOutcome.Acquired claimAsAnotherProcess(IdempotencyRecord record) {
        ClaimOutcome claim = backend.claim(new ClaimRequest(record.key(), record.payloadHash(), "crashed",
                Duration.ofSeconds(30), Duration.ZERO));
        assertTrue(claim instanceof ClaimOutcome.Acquired, claim.toString());
        return (ClaimOutcome.Acquired) claim;
    }

    @Test
    @Timeout(60)
    void aCallerWaitsForAnotherProcessAndGetsItsResult() throws Exception {
        IdempotencyRecord theirs = recordOfAnotherProcess("busy-owner", 3);
        ClaimOutcome.Acquired owner = claimAsAnotherProcess(theirs);

        Future<ArticleService.Article> waiting = background.submit(() -> service.generate("busy-owner", 3));
        // The call found the key in progress and asked the store again: it waits, neither refused nor running.
        watched.awaitInProgressAnswers(theirs.key(), 2);
        assertFalse(waiting.isDone(), "waits while the other process runs");
        assertTrue(backend.complete(theirs.key(), owner.fencingToken(), theirs.result(),
                Duration.ofMinutes(30)));

        ArticleService.Article article = waiting.get(30, TimeUnit.SECONDS);
        assertEquals(new ArticleService.Article("busy-owner", 3, 1, theirs.key()), article, "the other's result");
        assertEquals(0, service.runs.get());
        assertEquals(1, count(IdempotencyEventType.REPLAYED));
    }

    @Test
    @Timeout(60)
    void aCallerWaitsForAnotherProcessAndTakesOverOnceItsLeasePasses() throws Exception {
        IdempotencyRecord theirs = recordOfAnotherProcess("dead-owner", 3);
        ClaimOutcome.Acquired dead = claimAsAnotherProcess(theirs);

        Future<ArticleService.Article> waiting = background.submit(() -> service.generate("dead-owner", 3));
        watched.awaitInProgressAnswers(theirs.key(), 2);
        assertFalse(waiting.isDone(), "waits while the owner's lease holds");
        clock.advance(Duration.ofSeconds(31)); // the owner died: its lease passes while the call waits

        ArticleService.Article taken = waiting.get(30, TimeUnit.SECONDS);
        assertEquals(1, taken.edition());
        assertEquals(theirs.key(), taken.key());
        assertEquals(1, service.runs.get());
        assertTrue(dead.fencingToken() < backend.get(theirs.key()).orElseThrow().fencingToken());
        assertEquals(1, count(IdempotencyEventType.TAKEOVER));
    }

    /** A store whose server is gone. */
    static final class DownStore implements IdempotencyStore {
        private static IdempotencyStoreException down() {
            return new IdempotencyStoreException("connection refused");
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            throw down();
        }

        @Override
        public boolean complete(String key, long token, byte[] result, Duration ttl) {
            throw down();
        }

        @Override
        public boolean fail(String key, long token, byte[] failure, Duration failureTtl) {
            throw down();
        }

        @Override
        public boolean release(String key, long token) {
            throw down();
        }

        @Override
        public boolean renew(String key, long token, Duration lease) {
            throw down();
        }

        @Override
        public Optional<IdempotencyRecord> get(String key) {
            throw down();
        }

        @Override
        public void delete(String key) {
            throw down();
        }

        @Override
        public void close() {
            // nothing to release: it never connected
        }
    }
}
