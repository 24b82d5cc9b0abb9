package dev.idem.core;

import dev.idem.core.sharing.ClaimWatchingStore;
import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.util.logging.Level;
import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyFailureReplayException;
import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyStoreException;
import dev.idem.Idempotent;
import dev.idem.OnInProgress;
import dev.idem.OnStoreError;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every row of SEMANTICS.md section 5 for the in-memory store, on a clock the test moves. */
class CallSemanticsTest {
    /** The warnings these tests provoke on purpose are asserted, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");


    record Article(String topic, int day, int edition) implements Serializable {
    }

    static class RateLimited extends RuntimeException {
        RateLimited(String message) {
            super(message);
        }
    }

    static class Rejected extends RuntimeException {
        Rejected(String message) {
            super(message);
        }
    }

    static class Pipeline {
        final AtomicInteger runs = new AtomicInteger();
        volatile Runnable during = () -> {
        };
        volatile RuntimeException failWith;
        final AtomicReference<IdempotencyContext> seenContext = new AtomicReference<>();

        @Idempotent(scope = "lab:daily", ttl = "30m")
        Article generate(String topic, int day) {
            seenContext.set(IdempotencyContext.current().orElse(null));
            during.run();
            if (failWith != null) {
                throw failWith;
            }
            return new Article(topic, day, runs.incrementAndGet());
        }

        @Idempotent(scope = "lab:order", ttl = "30m")
        Article order(@IdempotencyKey String orderId, int quantity) {
            return new Article(orderId, quantity, runs.incrementAndGet());
        }

        @Idempotent(scope = "lab:windowed", window = "5m", ttl = "30m")
        Article windowed(String topic) {
            return new Article(topic, 0, runs.incrementAndGet());
        }

        @Idempotent(scope = "lab:remembered", failureTtl = "10s")
        Article remembered(String topic) {
            runs.incrementAndGet();
            throw new IllegalStateException("upstream said no to " + topic);
        }

        @Idempotent(scope = "lab:custom-failure", failureTtl = "10s")
        Article customFailure(String topic) {
            runs.incrementAndGet();
            throw new RateLimited("429 for " + topic);
        }

        @Idempotent(scope = "lab:no-retry", noRetryFor = Rejected.class)
        Article noRetry(String topic) {
            runs.incrementAndGet();
            throw new Rejected("invalid topic " + topic);
        }

        @Idempotent(scope = "lab:throw", onInProgress = OnInProgress.THROW)
        Article impatient(String topic) {
            return new Article(topic, 0, runs.incrementAndGet());
        }

        @Idempotent(scope = "lab:short-wait", waitTimeout = "1s")
        Article shortWait(String topic) {
            return new Article(topic, 0, runs.incrementAndGet());
        }

        @Idempotent(scope = "lab:open", onStoreError = OnStoreError.FAIL_OPEN)
        Article open(String topic) {
            return new Article(topic, 0, runs.incrementAndGet());
        }

        @Idempotent(scope = "lab:void")
        void publish(String topic) {
            runs.incrementAndGet();
        }

        @Idempotent(scope = "lab:optional")
        Optional<Article> find(String topic) {
            runs.incrementAndGet();
            return topic.isEmpty() ? Optional.empty() : Optional.of(new Article(topic, 0, runs.get()));
        }

        @Idempotent(scope = "lab:list")
        List<Article> batch(String topic) {
            runs.incrementAndGet();
            return List.of(new Article(topic, 1, 1), new Article(topic, 2, 1));
        }

        @Idempotent(scope = "lab:async")
        CompletableFuture<Article> generateAsync(@IdempotencyKey String topic, CompletableFuture<Article> upstream) {
            runs.incrementAndGet();
            return upstream;
        }
    }

    private final EngineFixture fx = new EngineFixture();
    private final Pipeline pipeline = new Pipeline();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void firstCallRunsTheMethodOnceAndStoresTheResult() throws Throwable {
        Article article = (Article) fx.call(pipeline, "generate", "rust", 1);

        assertEquals(new Article("rust", 1, 1), article);
        assertEquals(1, pipeline.runs.get());
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
        IdempotencyRecord record = fx.store.get(fx.last(IdempotencyEventType.EXECUTED).key()).orElseThrow();
        assertEquals(RecordState.COMPLETED, record.state());
        assertTrue(record.key().matches("idem:test:lab:daily:[0-9a-f]{32}"), record.key());
    }

    @Test
    void duplicateWithTheSamePayloadGetsTheStoredResultWithoutRunning() throws Throwable {
        Article first = (Article) fx.call(pipeline, "generate", "rust", 1);
        Article second = (Article) fx.call(pipeline, "generate", "rust", 1);

        assertEquals(first, second);
        assertEquals(1, pipeline.runs.get());
        assertEquals(1, fx.count(IdempotencyEventType.REPLAYED));
    }

    @Test
    void inFrontOfTheInMemoryStoreTheFirstDuplicateDecodesTheStoredResultAndLaterOnesShareIt() throws Throwable {
        Article first = (Article) fx.call(pipeline, "generate", "rust", 1);
        Article second = (Article) fx.call(pipeline, "generate", "rust", 1);
        Article third = (Article) fx.call(pipeline, "generate", "rust", 1);

        // The store already holds the result in this JVM: the first call does not keep a second, decoded copy.
        assertEquals(first, second);
        assertNotSame(first, second, "the first duplicate decodes the store's bytes");
        assertSame(second, third, "later duplicates share what the first duplicate decoded");
        assertEquals(List.of("from the store", "from this JVM's results"), fx.events.stream()
                .filter(e -> e.type() == IdempotencyEventType.REPLAYED).map(IdempotencyEvent::detail).toList());
    }

    @Test
    void inFrontOfAStoreInAnotherProcessTheResultIsKeptSoADuplicateCostsNoRoundTrip() throws Throwable {
        AtomicInteger claims = new AtomicInteger();
        IdempotencyStore remote = new DelegatingStore(new InMemoryIdempotencyStore(fx.clock)) {
            @Override
            public ClaimOutcome claim(ClaimRequest request) {
                claims.incrementAndGet();
                return super.claim(request);
            }
        };
        try (EngineFixture other = new EngineFixture(remote, b -> {
        })) {
            Article first = (Article) other.call(pipeline, "generate", "rust", 1);
            Article second = (Article) other.call(pipeline, "generate", "rust", 1);

            assertSame(first, second, "replayed from this engine's local results");
            assertEquals(1, claims.get(), "the duplicate made no claim");
        }
    }

    @Test
    void aDuplicateInAnotherEngineIsReplayedFromTheStore() throws Throwable {
        fx.call(pipeline, "generate", "rust", 1);
        try (EngineFixture other = new EngineFixture(fx.store, b -> b.clock(fx.clock))) {
            Pipeline elsewhere = new Pipeline();
            Article replayed = (Article) other.call(elsewhere, "generate", "rust", 1);

            assertEquals(new Article("rust", 1, 1), replayed);
            assertEquals(0, elsewhere.runs.get());
            assertTrue(other.last(IdempotencyEventType.REPLAYED).detail().contains("store"));
        }
    }

    @Test
    void otherArgumentsMakeAnotherCall() throws Throwable {
        fx.call(pipeline, "generate", "rust", 1);
        fx.call(pipeline, "generate", "rust", 2);
        fx.call(pipeline, "generate", "go", 1);

        assertEquals(3, pipeline.runs.get());
    }

    @Test
    void theSameKeyWithAnotherPayloadIsAConflictAndDoesNotRun() throws Throwable {
        fx.call(pipeline, "order", "order-17", 2);

        IdempotencyConflictException e = assertThrows(IdempotencyConflictException.class,
                () -> fx.call(pipeline, "order", "order-17", 3));

        assertEquals(1, pipeline.runs.get());
        assertTrue(e.getMessage().contains(Pipeline.class.getName() + "#order"), e.getMessage());
        assertEquals(1, fx.count(IdempotencyEventType.CONFLICT));
    }

    @Test
    void aConflictIsReportedAlsoWhenTheRecordComesFromTheStore() throws Throwable {
        fx.call(pipeline, "order", "order-17", 2);
        try (EngineFixture other = new EngineFixture(fx.store, b -> b.clock(fx.clock))) {
            assertThrows(IdempotencyConflictException.class, () -> other.call(new Pipeline(), "order", "order-17", 3));
        }
    }

    @Test
    void aThrowingMethodRethrowsUnchangedAndReleasesTheKeySoARetryRuns() throws Throwable {
        RuntimeException boom = new IllegalStateException("upstream 503");
        pipeline.failWith = boom;

        RuntimeException thrown = assertThrows(RuntimeException.class, () -> fx.call(pipeline, "generate", "rust", 1));
        assertSame(boom, thrown);
        pipeline.failWith = null;
        Article retried = (Article) fx.call(pipeline, "generate", "rust", 1);

        assertEquals(1, retried.edition());
    }

    @Test
    void aRememberedFailureReplaysTheSameTypeUntilTheFailureTtlPasses() throws Throwable {
        assertThrows(IllegalStateException.class, () -> fx.call(pipeline, "remembered", "rust"));
        IllegalStateException replayed = assertThrows(IllegalStateException.class,
                () -> fx.call(pipeline, "remembered", "rust"));
        assertEquals(1, pipeline.runs.get());
        assertTrue(replayed.getMessage().contains("upstream said no to rust"));
        assertEquals(1, fx.count(IdempotencyEventType.FAILURE_REPLAYED));

        fx.clock.advance(Duration.ofSeconds(12)); // past failureTtl plus its jitter
        assertThrows(IllegalStateException.class, () -> fx.call(pipeline, "remembered", "rust"));
        assertEquals(2, pipeline.runs.get());
    }

    @Test
    void aRememberedFailureOfAnUndeclaredApplicationTypeReplaysAsAFailureReplayException() throws Throwable {
        assertThrows(RateLimited.class, () -> fx.call(pipeline, "customFailure", "rust"));

        IdempotencyFailureReplayException replayed = assertThrows(IdempotencyFailureReplayException.class,
                () -> fx.call(pipeline, "customFailure", "rust"));
        assertEquals(RateLimited.class.getName(), replayed.originalType());
        assertTrue(replayed.getMessage().contains("429 for rust"));
        assertEquals(1, pipeline.runs.get());
    }

    @Test
    void aNoRetryForExceptionIsRecordedForTheFullTtlAndReplayed() throws Throwable {
        assertThrows(Rejected.class, () -> fx.call(pipeline, "noRetry", "bad"));
        fx.clock.advance(Duration.ofMinutes(59));

        Rejected replayed = assertThrows(Rejected.class, () -> fx.call(pipeline, "noRetry", "bad"));
        assertEquals("invalid topic bad", replayed.getMessage());
        assertEquals(1, pipeline.runs.get());

        fx.clock.advance(Duration.ofMinutes(8)); // past ttl 1h plus at most 10% jitter
        assertThrows(Rejected.class, () -> fx.call(pipeline, "noRetry", "bad"));
        assertEquals(2, pipeline.runs.get());
    }

    @Test
    void aRecordPastItsTtlRunsAgain() throws Throwable {
        fx.call(pipeline, "generate", "rust", 1);
        fx.clock.advance(Duration.ofMinutes(29));
        fx.call(pipeline, "generate", "rust", 1);
        assertEquals(1, pipeline.runs.get());

        fx.clock.advance(Duration.ofMinutes(5)); // 34 minutes: past 30m plus at most 3m jitter
        Article again = (Article) fx.call(pipeline, "generate", "rust", 1);
        assertEquals(2, again.edition());
    }

    @Test
    void withinTheWindowADuplicateReplaysAfterItItRunsAgainAsALateDuplicate() throws Throwable {
        fx.call(pipeline, "windowed", "rust");
        fx.clock.advance(Duration.ofMinutes(4));
        assertEquals(1, ((Article) fx.call(pipeline, "windowed", "rust")).edition());

        fx.clock.advance(Duration.ofMinutes(2));
        Article late = (Article) fx.call(pipeline, "windowed", "rust");

        assertEquals(2, late.edition());
        IdempotencyEvent event = fx.last(IdempotencyEventType.LATE_DUPLICATE);
        assertTrue(event.detail().contains("PT5M"), event.detail());
    }

    @Test
    void contextIsPresentInsideTheMethodAndAbsentOutside() throws Throwable {
        fx.call(pipeline, "generate", "rust", 1);

        IdempotencyContext seen = pipeline.seenContext.get();
        assertEquals(fx.last(IdempotencyEventType.EXECUTED).key(), seen.key());
        assertEquals(fx.store.get(seen.key()).orElseThrow().fencingToken(), seen.fencingToken());
        assertEquals(Optional.empty(), IdempotencyContext.current());
    }

    /**
     * The front-end contract, {@link IdemEngine#advise}: one handle per method whose {@code call} decides every call,
     * a result this engine keeps included.
     */
    @Nested
    class Handles {
        private final java.lang.reflect.Method generate = EngineFixture.find(Pipeline.class, "generate");

        /** Two calls: the first runs, the second replays from the store and keeps the decoded result. */
        private Article keptAfterTwoCalls() throws Throwable {
            fx.invoke(pipeline, "generate", "rust", 1);
            return (Article) fx.invoke(pipeline, "generate", "rust", 1);
        }

        private Object call(IdempotentMethod handle, String topic, int edition) throws Throwable {
            return handle.call(new Object[] {topic, edition}, () -> pipeline.generate(topic, edition));
        }

        @Test
        void aKeptResultIsAnsweredAsTheSameInstanceAndAnnouncedAsAReplayOfThisJvm() throws Throwable {
            IdempotentMethod handle = fx.engine.advise(generate);
            Article second = keptAfterTwoCalls();
            long replays = fx.count(IdempotencyEventType.REPLAYED);

            assertSame(second, call(handle, "rust", 1));
            assertEquals(replays + 1, fx.count(IdempotencyEventType.REPLAYED));
            IdempotencyEvent replayed = fx.last(IdempotencyEventType.REPLAYED);
            assertEquals("from this JVM's results", replayed.detail());
            assertEquals(fx.last(IdempotencyEventType.EXECUTED).key(), replayed.key(), "the key's full text");
            assertEquals(1, pipeline.runs.get(), "a replay never runs the body");
            assertEquals(2, ((Article) call(handle, "rust", 2)).edition(), "other arguments, another key");
        }

        @Test
        void aKeptResultOfAnotherPayloadIsAConflictAndNotAReplay() throws Throwable {
            fx.invoke(pipeline, "order", "order-17", 2);
            fx.invoke(pipeline, "order", "order-17", 2);
            long replays = fx.count(IdempotencyEventType.REPLAYED);

            assertThrows(IdempotencyConflictException.class, () -> fx.call(pipeline, "order", "order-17", 3));
            assertEquals(replays, fx.count(IdempotencyEventType.REPLAYED));
            assertEquals(1, fx.count(IdempotencyEventType.CONFLICT));
            assertEquals(1, pipeline.runs.get());
        }

        @Test
        void aCallInsideItsOwnRerunIsRefusedNotAnsweredFromTheExpiredResult() throws Throwable {
            keptAfterTwoCalls();
            fx.clock.advance(Duration.ofMinutes(34)); // the kept result expired: the next call runs again
            AtomicReference<Throwable> nested = new AtomicReference<>();
            pipeline.during = () -> {
                pipeline.during = () -> {
                };
                try {
                    nested.set(new AssertionError("answered " + fx.call(pipeline, "generate", "rust", 1)));
                } catch (Throwable t) {
                    nested.set(t);
                }
            };

            assertEquals(2, ((Article) fx.call(pipeline, "generate", "rust", 1)).edition());
            assertInstanceOf(dev.idem.IdempotencyReentryException.class, nested.get());
        }

        @Test
        void aFutureMethodsKeptResultIsANewCompletedFuturePerCall() throws Throwable {
            CompletableFuture<Article> upstream = CompletableFuture.completedFuture(new Article("rust", 0, 1));
            fx.invoke(pipeline, "generateAsync", "rust", upstream);
            fx.invoke(pipeline, "generateAsync", "rust", upstream);

            Object first = fx.call(pipeline, "generateAsync", "rust", upstream);
            Object second = fx.call(pipeline, "generateAsync", "rust", upstream);
            assertInstanceOf(CompletableFuture.class, first);
            assertNotSame(first, second, "a caller completing its future leaves the next caller's alone");
            assertEquals(new Article("rust", 0, 1), ((CompletableFuture<?>) first).getNow(null));
        }

        @Test
        void aMethodTheEngineRefusesIsRefusedWhenAdvisedAndAgainEveryTimeNothingKept() {
            java.lang.reflect.Method unannotated = EngineFixture.find(Unplanned.class, "run");

            var first = assertThrows(dev.idem.IdempotencyConfigurationException.class,
                    () -> fx.engine.advise(unannotated));
            assertTrue(first.getMessage().contains("run"), first.getMessage());
            assertThrows(dev.idem.IdempotencyConfigurationException.class, () -> fx.engine.advise(unannotated));
            assertThrows(dev.idem.IdempotencyConfigurationException.class,
                    () -> fx.call(new Unplanned(), "run", "x"));
        }

        @Test
        void twoEnginesCalledInTurnOnOneThreadEachAnswerFromTheirOwnPlanAndResults() throws Throwable {
            keptAfterTwoCalls();
            try (EngineFixture other = new EngineFixture(fx.store, b -> b.clock(fx.clock).namespace("other"))) {
                Pipeline elsewhere = new Pipeline();
                IdempotentMethod here = fx.engine.advise(generate);
                IdempotentMethod there = other.engine.advise(generate);
                for (int round = 0; round < 3; round++) {
                    assertEquals(new Article("rust", 1, 1), call(here, "rust", 1));
                    Article answered = (Article) there.call(new Object[] {"rust", 1},
                            () -> elsewhere.generate("rust", 1));
                    assertEquals(1, answered.edition(), "its own namespace: its own key, run once there");
                }
                assertEquals(1, elsewhere.runs.get());
                assertEquals(1, pipeline.runs.get());
                assertEquals(2, other.count(IdempotencyEventType.REPLAYED));
            }
        }

        @Test
        void anEngineAnswersOneHandlePerMethodWhichAnswersAsTheEngineDoes() throws Throwable {
            IdempotentMethod handle = fx.engine.advise(generate);
            assertSame(handle, fx.engine.advise(generate), "planned once");
            assertSame(generate, handle.method());

            Article first = (Article) call(handle, "rust", 1);
            Article second = (Article) fx.invoke(pipeline, "generate", "rust", 1);
            assertEquals(first, second);
            assertSame(second, call(handle, "rust", 1), "the engine's plan, the same results");
            assertEquals(1, pipeline.runs.get());
        }
    }

    static class Unplanned {
        String run(String topic) {
            return topic;
        }
    }

    @Nested
    class AnotherProcessRunsIt {
        /** The engine under test, on the same store as {@code fx}, whose claims the test watches. */
        private final ClaimWatchingStore watched = new ClaimWatchingStore(fx.store, Duration.ofSeconds(10));
        private final EngineFixture caller = new EngineFixture(watched, b -> b.clock(fx.clock));
        private final ExecutorService callers = Executors.newSingleThreadExecutor();

        @AfterEach
        void closeCaller() {
            callers.shutdownNow();
            caller.close();
        }

        private String claimAsAnotherProcess(Object... args) throws Throwable {
            // Learn the key the way an operator would: run it once in a throwaway engine on the same clock.
            try (EngineFixture probe = new EngineFixture(b -> b.clock(fx.clock))) {
                probe.call(new Pipeline(), (String) args[0], java.util.Arrays.copyOfRange(args, 1, args.length));
                IdempotencyRecord seen = probe.store.get(probe.last(IdempotencyEventType.EXECUTED).key()).orElseThrow();
                ClaimOutcome claim = fx.store.claim(new ClaimRequest(seen.key(), seen.payloadHash(),
                        "other-process", Duration.ofSeconds(30), Duration.ZERO));
                assertInstanceOf(ClaimOutcome.Acquired.class, claim);
                return seen.key();
            }
        }

        private Future<Object> callInBackground(String method, Object... args) {
            return callers.submit(() -> {
                try {
                    return caller.call(pipeline, method, args);
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new AssertionError(t);
                }
            });
        }

        @Test
        void withOnInProgressThrowTheCallerIsRefusedAtOnce() throws Throwable {
            String key = claimAsAnotherProcess("impatient", "rust");

            IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
                    () -> caller.call(pipeline, "impatient", "rust"));
            assertTrue(e.getMessage().contains("other-process"), e.getMessage());
            assertTrue(e.getMessage().contains("onInProgress = THROW"), e.getMessage());
            assertEquals(1, watched.inProgressAnswers(key), "refused on the first answer, without asking again");
            assertEquals(0, pipeline.runs.get());
            assertEquals(1, caller.count(IdempotencyEventType.IN_PROGRESS), "listeners hear of the refusal");
        }

        @Test
        @Timeout(30)
        void aWaitingCallerGivesUpAfterTheWaitTimeout() throws Throwable {
            String key = claimAsAnotherProcess("shortWait", "rust");

            IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
                    () -> caller.call(pipeline, "shortWait", "rust"));
            assertTrue(e.getMessage().contains("did not finish within waitTimeout"), e.getMessage());
            assertTrue(watched.inProgressAnswers(key) >= 2,
                    "it waited, asking the store again, before giving up: " + watched.inProgressAnswers(key));
            assertEquals(0, pipeline.runs.get());
        }

        @Test
        @Timeout(30)
        void aWaitingCallerGetsTheOtherProcessesResultWhenItCompletes() throws Throwable {
            String key = claimAsAnotherProcess("generate", "rust", 1);
            long token = fx.store.get(key).orElseThrow().fencingToken();
            Future<Object> waiting = callInBackground("generate", "rust", 1);

            // The caller found the key in progress and asked again: it is waiting, not refused and not running.
            watched.awaitInProgressAnswers(key, 2);
            assertFalse(waiting.isDone(), "still waiting while the other process runs");
            // The other process finishes: write what it would have written, encoded by a real engine.
            byte[] result;
            try (EngineFixture writer = new EngineFixture(b -> b.clock(fx.clock))) {
                writer.call(new Pipeline(), "generate", "rust", 1);
                result = writer.store.get(key).orElseThrow().result();
            }
            assertTrue(fx.store.complete(key, token, result, Duration.ofMinutes(30)));

            assertEquals(new Article("rust", 1, 1), waiting.get(20, TimeUnit.SECONDS));
            assertEquals(0, pipeline.runs.get());
            assertEquals(1, caller.count(IdempotencyEventType.REPLAYED));
        }

        @Test
        @Timeout(30)
        void aWaitingCallerTakesTheKeyOverWhenTheOwnersLeasePassesWhileItWaits() throws Throwable {
            String key = claimAsAnotherProcess("generate", "rust", 1);
            long dead = fx.store.get(key).orElseThrow().fencingToken();
            Future<Object> waiting = callInBackground("generate", "rust", 1);

            watched.awaitInProgressAnswers(key, 2);
            assertFalse(waiting.isDone(), "still waiting while the owner's lease holds");
            fx.clock.advance(Duration.ofSeconds(31)); // the owner died: its lease passes while the caller waits

            assertEquals(new Article("rust", 1, 1), waiting.get(20, TimeUnit.SECONDS));
            assertEquals(1, pipeline.runs.get());
            assertEquals(1, caller.count(IdempotencyEventType.TAKEOVER));
            assertTrue(fx.store.get(key).orElseThrow().fencingToken() > dead);
        }

        @Test
        void aCrashedOwnersKeyIsTakenOverOnceItsLeasePasses() throws Throwable {
            String key = claimAsAnotherProcess("generate", "rust", 1);
            long dead = fx.store.get(key).orElseThrow().fencingToken();
            fx.clock.advance(Duration.ofSeconds(31));

            Article article = (Article) caller.call(pipeline, "generate", "rust", 1);

            assertEquals(1, pipeline.runs.get());
            assertEquals(1, article.edition());
            assertTrue(fx.store.get(key).orElseThrow().fencingToken() > dead);
            assertEquals(1, caller.count(IdempotencyEventType.TAKEOVER));
            assertEquals(0, watched.inProgressAnswers(key), "the passed lease was taken over at the first claim");
            assertFalse(fx.store.complete(key, dead, new byte[] {1}, Duration.ofMinutes(1)), "the dead owner is fenced");
        }
    }

    @Test
    void theHeartbeatKeepsLongWorkFromBeingTakenOver() throws Throwable {
        AtomicReference<ClaimOutcome> rivalClaim = new AtomicReference<>();
        pipeline.during = () -> {
            String key = IdempotencyContext.current().orElseThrow().key();
            // Long work: 50 seconds pass while the method runs, beyond the 30s lease, with a beat every 10s.
            for (int i = 0; i < 5; i++) {
                fx.clock.advance(Duration.ofSeconds(10));
                fx.heartbeat.beatAll();
            }
            IdempotencyRecord mine = fx.store.get(key).orElseThrow();
            rivalClaim.set(fx.store.claim(new ClaimRequest(key, mine.payloadHash(), "rival", Duration.ofSeconds(30),
                    Duration.ZERO)));
        };

        Article article = (Article) fx.call(pipeline, "generate", "rust", 1);

        assertEquals(1, article.edition());
        assertInstanceOf(ClaimOutcome.Existing.class, rivalClaim.get(), "no takeover while the owner beats");
        assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST));
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
        // The beat stopped with the method: had it not, this sweep would try to renew the completed record, be
        // refused, and report a lost lease.
        fx.clock.advance(Duration.ofSeconds(10));
        fx.heartbeat.beatAll();
        assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST));
    }

    @Test
    void withoutBeatsTheSameLongWorkWouldHaveBeenTakenOver() throws Throwable {
        AtomicReference<ClaimOutcome> rivalClaim = new AtomicReference<>();
        pipeline.during = () -> {
            String key = IdempotencyContext.current().orElseThrow().key();
            fx.clock.advance(Duration.ofSeconds(50)); // the control: same time passes, no beat
            IdempotencyRecord mine = fx.store.get(key).orElseThrow();
            rivalClaim.set(fx.store.claim(new ClaimRequest(key, mine.payloadHash(), "rival", Duration.ofSeconds(30),
                    Duration.ZERO)));
        };

        fx.call(pipeline, "generate", "rust", 1);

        assertInstanceOf(ClaimOutcome.Acquired.class, rivalClaim.get());
        assertEquals(1, fx.count(IdempotencyEventType.LEASE_LOST));
    }

    @Test
    void whenTheLeaseIsLostWhileRunningTheResultIsReturnedButTheCompletionIsRefused() throws Throwable {
        AtomicReference<String> key = new AtomicReference<>();
        pipeline.during = () -> {
            String k = IdempotencyContext.current().orElseThrow().key();
            key.set(k);
            fx.clock.advance(Duration.ofSeconds(31)); // stalled past the lease with no beat
            IdempotencyRecord mine = fx.store.get(k).orElseThrow();
            assertInstanceOf(ClaimOutcome.Acquired.class, fx.store.claim(new ClaimRequest(k, mine.payloadHash(),
                    "usurper", Duration.ofSeconds(30), Duration.ZERO)));
        };

        Article article = (Article) fx.call(pipeline, "generate", "rust", 1);

        assertEquals(new Article("rust", 1, 1), article);
        assertEquals(1, fx.count(IdempotencyEventType.LEASE_LOST));
        assertEquals("usurper", fx.store.get(key.get()).orElseThrow().owner());
        assertEquals(RecordState.IN_PROGRESS, fx.store.get(key.get()).orElseThrow().state());
    }

    @Nested
    class StoreOutage {
        private final BreakableStore breakable = new BreakableStore(new InMemoryIdempotencyStore(fx.clock));
        private final EngineFixture outage = new EngineFixture(breakable, b -> b.clock(fx.clock));

        @AfterEach
        void closeOutage() {
            outage.close();
        }

        @Test
        void failClosedRefusesTheCallAndDoesNotRunTheMethod() {
            breakable.down = true;

            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                    () -> outage.call(pipeline, "generate", "rust", 1));

            assertEquals(0, pipeline.runs.get());
            assertTrue(e.getMessage().contains(Pipeline.class.getName() + "#generate"), e.getMessage());
            assertTrue(e.getMessage().contains("did not run"), e.getMessage());
            assertEquals(1, outage.count(IdempotencyEventType.STORE_ERROR), "listeners hear of the refusal");
        }

        @Test
        void aLocallyKnownResultIsStillReplayedWhileTheStoreIsDown() throws Throwable {
            outage.call(pipeline, "generate", "rust", 1);
            breakable.down = true;

            assertEquals(new Article("rust", 1, 1), outage.call(pipeline, "generate", "rust", 1));
            assertEquals(1, pipeline.runs.get());
        }

        @Test
        void failOpenRunsTheMethodUnprotectedAndSaysSo() throws Throwable {
            breakable.down = true;

            outage.call(pipeline, "open", "rust");

            assertEquals(1, pipeline.runs.get());
            assertEquals(1, outage.count(IdempotencyEventType.FAIL_OPEN));
            log.assertLogged(Level.WARNING, "FAIL_OPEN");
        }

        @Test
        void theGlobalFailOpenSettingAppliesToEveryMethod() throws Throwable {
            try (EngineFixture open = new EngineFixture(breakable, b -> b.clock(fx.clock)
                    .onStoreError(OnStoreError.FAIL_OPEN))) {
                breakable.down = true;
                open.call(pipeline, "generate", "rust", 1);
                assertEquals(1, pipeline.runs.get());
            }
        }

        @Test
        void whenSavingFailsTheResultIsStillReturnedAndReportedIndeterminate() throws Throwable {
            breakable.failWritesAfterClaim = true;

            Article article = (Article) outage.call(pipeline, "generate", "rust", 1);

            assertEquals(new Article("rust", 1, 1), article);
            IdempotencyEvent event = outage.last(IdempotencyEventType.INDETERMINATE);
            log.assertLogged(Level.WARNING, "INDETERMINATE");
            assertEquals(2, breakable.failedCompletions.get(), "completion was retried");
            IdempotencyRecord left = breakable.delegate.get(event.key()).orElseThrow();
            assertEquals(RecordState.IN_PROGRESS, left.state(), "left in progress until its lease passes");
        }
    }

    @Test
    void voidMethodsAreDeduplicated() throws Throwable {
        assertNull(fx.call(pipeline, "publish", "rust"));
        assertNull(fx.call(pipeline, "publish", "rust"));
        assertEquals(1, pipeline.runs.get());
    }

    @Test
    void optionalResultsReplayAsOptionals() throws Throwable {
        assertEquals(Optional.empty(), fx.call(pipeline, "find", ""));
        assertEquals(Optional.empty(), fx.call(pipeline, "find", ""));
        Object found = fx.call(pipeline, "find", "rust");
        try (EngineFixture other = new EngineFixture(fx.store, b -> b.clock(fx.clock))) {
            assertEquals(found, other.call(new Pipeline(), "find", "rust"), "decoded from the store");
            assertEquals(Optional.empty(), other.call(new Pipeline(), "find", ""));
        }
        assertEquals(2, pipeline.runs.get());
    }

    @Test
    void genericResultsDecodeFromTheStore() throws Throwable {
        Object first = fx.call(pipeline, "batch", "rust");
        try (EngineFixture other = new EngineFixture(fx.store, b -> b.clock(fx.clock))) {
            assertEquals(first, other.call(new Pipeline(), "batch", "rust"));
        }
    }

    @Test
    @Timeout(30)
    void completionStageRecordsCompleteWhenTheFutureDoes() throws Throwable {
        CompletableFuture<Article> upstream = new CompletableFuture<>();

        @SuppressWarnings("unchecked")
        CompletableFuture<Article> first = (CompletableFuture<Article>) fx.call(pipeline, "generateAsync", "rust",
                upstream);
        assertFalse(first.isDone());
        assertEquals(0, fx.count(IdempotencyEventType.EXECUTED));

        upstream.complete(new Article("rust", 0, 1));
        assertEquals(new Article("rust", 0, 1), first.get(5, TimeUnit.SECONDS));
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
        @SuppressWarnings("unchecked")
        CompletableFuture<Article> again = (CompletableFuture<Article>) fx.call(pipeline, "generateAsync", "rust",
                new CompletableFuture<Article>());
        assertEquals(new Article("rust", 0, 1), again.get(5, TimeUnit.SECONDS));
        assertEquals(1, pipeline.runs.get());
    }

    @Test
    void aStoredResultNamingAClassOutsideTheAllowListIsRefusedAndTheMethodDoesNotRun() throws Throwable {
        fx.call(pipeline, "generate", "rust", 1);
        String key = fx.last(IdempotencyEventType.EXECUTED).key();
        IdempotencyRecord record = fx.store.get(key).orElseThrow();
        // Poison the store: the same key now holds a serialized object of a class the method never returns.
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.write(new byte[] {'I', 4, 'j', 'a', 'v', 'a', 1}); // the java codec's header, format 1
        bytes.write(1); // its serialized form
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(new Gadget());
        }
        fx.store.delete(key);
        ClaimOutcome.Acquired claim = (ClaimOutcome.Acquired) fx.store.claim(new ClaimRequest(key,
                record.payloadHash(), "attacker", Duration.ofSeconds(30), Duration.ZERO));
        fx.store.complete(key, claim.fencingToken(), bytes.toByteArray(), Duration.ofMinutes(30));

        try (EngineFixture victim = new EngineFixture(fx.store, b -> b.clock(fx.clock))) {
            Pipeline fresh = new Pipeline();
            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                    () -> victim.call(fresh, "generate", "rust", 1));
            assertTrue(e.getMessage().contains("cannot be decoded") && e.getMessage().contains("REJECTED"),
                    e.getMessage());
            assertEquals(0, fresh.runs.get());
            assertFalse(Gadget.deserialized, "the refused class's readObject never ran");
        }
    }

    static class Gadget implements Serializable {
        static volatile boolean deserialized;

        private void readObject(java.io.ObjectInputStream in) {
            deserialized = true;
        }
    }

    /** A real in-memory store behind a switch that makes it fail like an unreachable server. */
    static final class BreakableStore extends DelegatingStore {
        volatile boolean down;
        volatile boolean failWritesAfterClaim;
        final AtomicInteger failedCompletions = new AtomicInteger();

        BreakableStore(IdempotencyStore delegate) {
            super(delegate);
        }

        private void check() {
            if (down) {
                throw new IdempotencyStoreException("connection refused (simulated outage)");
            }
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            check();
            return super.claim(request);
        }

        @Override
        public boolean complete(String key, long token, byte[] result, Duration ttl) {
            check();
            if (failWritesAfterClaim) {
                failedCompletions.incrementAndGet();
                throw new IdempotencyStoreException("connection reset (simulated outage)");
            }
            return super.complete(key, token, result, ttl);
        }

        @Override
        public boolean fail(String key, long token, byte[] failure, Duration failureTtl) {
            check();
            return super.fail(key, token, failure, failureTtl);
        }

        @Override
        public boolean release(String key, long token) {
            check();
            return super.release(key, token);
        }

        @Override
        public boolean renew(String key, long token, Duration lease) {
            check();
            return super.renew(key, token, lease);
        }

        @Override
        public Optional<IdempotencyRecord> get(String key) {
            check();
            return super.get(key);
        }

        @Override
        public void delete(String key) {
            check();
            super.delete(key);
        }

        @Override
        public void close() {
            // the delegate belongs to the test, which closes it
        }
    }
}
