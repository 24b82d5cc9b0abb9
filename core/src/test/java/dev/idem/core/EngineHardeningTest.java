package dev.idem.core;

import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.util.logging.Level;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyKeyException;
import dev.idem.IdempotencyReentryException;
import dev.idem.IdempotencyResultNotStoredException;
import dev.idem.Idempotent;
import dev.idem.OnInProgress;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's answers where a careless implementation hangs, leaks or lies: an Error while a result is saved, a
 * call from inside its own execution, a leader that hangs or is interrupted, a renewal racing a completion, a slow
 * store, an argument that cannot be encoded. Every test here failed (or hung) on the engine before it was hardened.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EngineHardeningTest {
    /** The warnings these tests provoke on purpose are asserted, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    private static final long WAIT_SECONDS = 10;

    /** A value whose encoding throws an Error, as a value nested too deep for the encoder's stack would. */
    static final class TooDeep implements Serializable {
        private static final long serialVersionUID = 1L;
        final String topic;

        TooDeep(String topic) {
            this.topic = topic;
        }

        private void writeObject(ObjectOutputStream out) {
            throw new StackOverflowError("planted: the value is nested too deep to encode");
        }
    }

    record Ticket(String id) {
    }

    /** Methods whose bodies the tests steer through latches; every body counts its runs. */
    static class Service {
        final AtomicInteger runs = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch mayFinish = new CountDownLatch(1);
        volatile CompletableFuture<?> upstream = new CompletableFuture<>();
        volatile EngineFixture fx;
        volatile Throwable throwOnFirstRun;

        @Idempotent(scope = "h:deep")
        TooDeep deep(String topic) {
            runs.incrementAndGet();
            return new TooDeep(topic);
        }

        @Idempotent(scope = "h:deep-async")
        @SuppressWarnings("unchecked")
        CompletableFuture<TooDeep> deepAsync(String topic) {
            runs.incrementAndGet();
            return (CompletableFuture<TooDeep>) upstream;
        }

        @Idempotent(scope = "h:nested")
        String outer(String topic) throws Throwable {
            runs.incrementAndGet();
            String ownKey = IdempotencyContext.current().orElseThrow().key();
            try {
                return "inner returned " + fx.call(this, "inner", topic);
            } catch (IdempotencyReentryException e) {
                return ownKey + " refused: " + e.getMessage();
            }
        }

        @Idempotent(scope = "h:nested")
        String inner(String topic) {
            runs.incrementAndGet();
            return "inner ran";
        }

        @Idempotent(scope = "h:chain")
        String chainOuter(String topic) throws Throwable {
            runs.incrementAndGet();
            return (String) fx.call(this, "chainMiddle", topic);
        }

        @Idempotent(scope = "h:chain-middle")
        String chainMiddle(String topic) throws Throwable {
            try {
                return "middle got " + fx.call(this, "chainOuter", topic);
            } catch (IdempotencyReentryException e) {
                return "middle refused";
            }
        }

        @Idempotent(scope = "h:nested")
        String outerOther(String topic) throws Throwable {
            return "inner returned " + fx.call(this, "inner", topic + "-other");
        }

        @Idempotent(scope = "h:self-retry")
        @SuppressWarnings("unchecked")
        CompletableFuture<String> selfRetry(String topic) {
            runs.incrementAndGet();
            return ((CompletableFuture<String>) upstream).exceptionallyCompose(e -> callAsync("selfRetry", topic));
        }

        @Idempotent(scope = "h:self-retry-later", waitTimeout = "200ms")
        @SuppressWarnings("unchecked")
        CompletableFuture<String> selfRetryLater(String topic) {
            runs.incrementAndGet();
            return ((CompletableFuture<String>) upstream).exceptionallyCompose(e -> callAsync("selfRetryLater", topic));
        }

        @Idempotent(scope = "h:interrupted", failureTtl = "10s")
        String interruptible(String topic) throws Throwable {
            int run = runs.incrementAndGet();
            entered.countDown();
            awaitOrFail(mayFinish);
            Throwable planted = throwOnFirstRun;
            if (run == 1 && planted != null) {
                throw planted;
            }
            return topic + " run " + run;
        }

        volatile String runningKey;

        @Idempotent(scope = "h:slow")
        String slow(String topic) {
            runs.incrementAndGet();
            runningKey = IdempotencyContext.current().map(IdempotencyContext::key).orElse(null);
            entered.countDown();
            awaitOrFail(mayFinish);
            return topic + " done";
        }

        @Idempotent(scope = "h:hang", waitTimeout = "150ms")
        String hang(String topic) {
            return slow(topic);
        }

        @Idempotent(scope = "h:hang-throw", waitTimeout = "1h", onInProgress = OnInProgress.THROW)
        String hangThrow(String topic) {
            return slow(topic);
        }

        @Idempotent(scope = "h:hang-async", waitTimeout = "150ms")
        @SuppressWarnings("unchecked")
        CompletableFuture<String> hangAsync(String topic) {
            runs.incrementAndGet();
            return (CompletableFuture<String>) upstream;
        }

        @Idempotent(scope = "h:keyed")
        String keyed(@IdempotencyKey List<Object> items) {
            runs.incrementAndGet();
            return "ran";
        }

        @Idempotent(scope = "h:windowed", window = "5m", ttl = "30m")
        String windowed(String topic) {
            return topic + " run " + runs.incrementAndGet();
        }

        @Idempotent(scope = "h:order")
        String order(@IdempotencyKey String orderId, int quantity) {
            return slow(orderId + " x" + quantity);
        }

        @Idempotent(scope = "h:async")
        @SuppressWarnings("unchecked")
        CompletableFuture<String> async(String topic) {
            runs.incrementAndGet();
            return (CompletableFuture<String>) upstream;
        }

        /** Placeholders take at most 128 characters each; sixteen of them can still make too long a key. */
        @Idempotent(scope = "h:{topic}{topic}{topic}{topic}{topic}{topic}{topic}{topic}"
                + "{topic}{topic}{topic}{topic}{topic}{topic}{topic}{topic}")
        String partitioned(String topic) {
            runs.incrementAndGet();
            return topic;
        }

        @Idempotent(scope = "h:ticket")
        String ticket(Ticket ticket) {
            runs.incrementAndGet();
            return ticket.id();
        }

        @SuppressWarnings("unchecked")
        private CompletableFuture<String> callAsync(String method, String topic) {
            try {
                return (CompletableFuture<String>) fx.call(this, method, topic);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }

    private final List<EngineFixture> fixtures = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Service service = new Service();

    private EngineFixture fixture(java.util.function.Consumer<IdemSettings.Builder> customise) {
        EngineFixture fx = new EngineFixture(customise);
        service.fx = fx;
        fixtures.add(fx);
        return fx;
    }

    private EngineFixture fixture() {
        return fixture(b -> {
        });
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        service.mayFinish.countDown();
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "test threads did not stop");
        fixtures.forEach(EngineFixture::close);
        Thread.interrupted(); // a planted interrupt must not leak into the next test
    }

    static void awaitOrFail(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("a latch the test controls was not released within " + WAIT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the test", e);
        }
    }

    private static <T extends Throwable> T causeOf(Class<T> type, Future<?> future) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return assertInstanceOf(type, e.getCause());
    }

    private static Object await(Future<?> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Nested
    class WhenTheResultCannotBeStored {

        @Test
        void theCallerWhoRanTheMethodGetsItsResultAndDuplicatesAreToldAtOnce() throws Throwable {
            EngineFixture fx = fixture();

            TooDeep first = (TooDeep) fx.call(service, "deep", "rust");

            assertEquals("rust", first.topic, "the work happened, so its caller gets the result");
            IdempotencyEvent event = fx.last(IdempotencyEventType.RESULT_NOT_STORED);
            log.assertLogged(Level.WARNING, "RESULT_NOT_STORED");
            assertTrue(event.detail().contains("recorded as FAILED"), event.detail());
            assertInstanceOf(StackOverflowError.class, event.cause());
            assertEquals(RecordState.FAILED, fx.store.get(event.key()).orElseThrow().state(),
                    "the key is never left in progress");
            assertEquals(0, fx.engine.inFlightCount());

            // A duplicate neither waits for a dead claim nor runs the side effect again: it is told at once.
            IdempotencyResultNotStoredException e = assertThrows(IdempotencyResultNotStoredException.class,
                    () -> fx.call(service, "deep", "rust"));
            assertTrue(e.getMessage().contains(event.key()) && e.getMessage().contains("succeeded"), e.getMessage());
            assertEquals(1, service.runs.get());
            assertEquals(0, fx.count(IdempotencyEventType.IN_PROGRESS));

            fx.clock.advance(Duration.ofMinutes(67)); // past the ttl (1h) and its jitter: it may run again
            assertEquals("rust", ((TooDeep) fx.call(service, "deep", "rust")).topic);
            assertEquals(2, service.runs.get());
        }

        @Test
        void aCompletionStageCallerGetsItsResultAndLaterCallsDoNotHang() throws Throwable {
            EngineFixture fx = fixture();
            CompletableFuture<TooDeep> upstream = new CompletableFuture<>();
            service.upstream = upstream;

            CompletableFuture<?> first = (CompletableFuture<?>) fx.call(service, "deepAsync", "rust");
            upstream.complete(new TooDeep("rust"));

            assertEquals("rust", ((TooDeep) await(first)).topic);
            assertEquals(0, fx.engine.inFlightCount(), "the in-flight entry is removed");
            IdempotencyEvent event = fx.last(IdempotencyEventType.RESULT_NOT_STORED);
            assertEquals(RecordState.FAILED, fx.store.get(event.key()).orElseThrow().state());

            assertThrows(IdempotencyResultNotStoredException.class, () -> fx.call(service, "deepAsync", "rust"),
                    "a duplicate is told at once, never handed a future that does not complete");
            assertEquals(1, service.runs.get());
        }
    }

    @Nested
    class CompletionStages {

        @Test
        void aStageFailureIsHandedOnAsItIsNotAsItsCause() throws Throwable {
            EngineFixture fx = fixture();
            IllegalStateException boom = new IllegalStateException("503", new java.io.IOException("reset"));
            service.upstream = CompletableFuture.failedFuture(boom);

            CompletableFuture<?> call = (CompletableFuture<?>) fx.call(service, "async", "rust");

            assertEquals(boom, causeOf(IllegalStateException.class, call));
        }

        @Test
        void aNullStageIsAnErrorNamingTheMethodAndTheKeyIsReleased() throws Throwable {
            EngineFixture fx = fixture();
            service.upstream = null;

            NullPointerException e = assertThrows(NullPointerException.class, () -> fx.call(service, "async", "rust"));
            assertTrue(e.getMessage().contains("Service#async"), e.getMessage());
            assertEquals(0, fx.engine.inFlightCount());

            service.upstream = CompletableFuture.completedFuture("rust done");
            assertEquals("rust done", await((CompletableFuture<?>) fx.call(service, "async", "rust")));
            assertEquals(2, service.runs.get(), "the key was released, not left in progress");
        }
    }

    @Nested
    class CallsFromInsideTheirOwnExecution {

        @Test
        void aNestedCallWithItsOwnKeyIsRefusedAtOnceNamingTheKey() throws Throwable {
            EngineFixture fx = fixture();

            String answer = (String) fx.call(service, "outer", "rust");

            String key = answer.substring(0, answer.indexOf(" refused: "));
            assertTrue(key.startsWith("idem:test:h:nested:"), answer);
            assertTrue(answer.substring(key.length()).contains(key), "the error names the key: " + answer);
            assertEquals(1, service.runs.get(), "the inner body never ran");
            assertEquals(RecordState.COMPLETED, fx.store.get(key).orElseThrow().state(), "the outer call finished");
            assertEquals(0, fx.engine.inFlightCount());
        }

        @Test
        void reentryIsFoundThroughAnotherExecutionInBetween() throws Throwable {
            EngineFixture fx = fixture();

            assertEquals("middle refused", fx.call(service, "chainOuter", "rust"));

            assertEquals(1, service.runs.get());
            assertTrue(fx.last(IdempotencyEventType.IN_PROGRESS).detail().contains("inside its own execution"));
        }

        @Test
        void aNestedCallWithAnotherKeyRuns() throws Throwable {
            EngineFixture fx = fixture();

            assertEquals("inner returned inner ran", fx.call(service, "outerOther", "rust"));

            assertEquals(1, service.runs.get(), "the inner method ran");
            assertEquals(2, fx.count(IdempotencyEventType.EXECUTED));
            assertEquals(0, fx.count(IdempotencyEventType.IN_PROGRESS));
        }

        @Test
        void anAsyncSelfRetryOnTheExecutingThreadIsRefusedAtOnce() throws Throwable {
            EngineFixture fx = fixture();
            service.upstream = CompletableFuture.failedFuture(new IllegalStateException("429 from upstream"));

            CompletableFuture<?> call = (CompletableFuture<?>) fx.call(service, "selfRetry", "rust");

            causeOf(IdempotencyReentryException.class, call);
            assertEquals(1, service.runs.get());
            assertEquals(0, fx.engine.inFlightCount());
            assertEquals(0, fx.count(IdempotencyEventType.EXECUTED));
        }

        @Test
        void anAsyncSelfRetryFromAnotherThreadEndsWithinTheWaitTimeoutAndReleasesTheKey() throws Throwable {
            EngineFixture fx = fixture();
            CompletableFuture<String> upstream = new CompletableFuture<>();
            service.upstream = upstream;

            CompletableFuture<?> call = (CompletableFuture<?>) fx.call(service, "selfRetryLater", "rust");
            threads.submit(() -> upstream.completeExceptionally(new IllegalStateException("429 from upstream")));

            IdempotencyInProgressException e = causeOf(IdempotencyInProgressException.class, call);
            assertTrue(e.getMessage().contains("self-retry"), e.getMessage());
            assertEquals(1, service.runs.get());
            assertEquals(0, fx.engine.inFlightCount());
            String key = fx.last(IdempotencyEventType.COALESCED).key();
            assertEquals(Optional.empty(), fx.store.get(key), "the failed execution released its key");
        }
    }

    @Nested
    class FailuresThatAreTheLeadersOwn {

        @Test
        void anInterruptIsRethrownButNeverRemembered() throws Throwable {
            EngineFixture fx = fixture();
            service.mayFinish.countDown();
            service.throwOnFirstRun = new InterruptedException("the leader's thread was interrupted");

            assertThrows(InterruptedException.class, () -> fx.call(service, "interruptible", "rust"));
            assertEquals("rust run 2", fx.call(service, "interruptible", "rust"));
            assertEquals(0, fx.count(IdempotencyEventType.FAILURE_REPLAYED));
            assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST), "the release was accepted");
        }

        @Test
        void anErrorIsRethrownButNeverRemembered() throws Throwable {
            EngineFixture fx = fixture();
            service.mayFinish.countDown();
            // A LinkageError rather than an OutOfMemoryError: JUnit aborts the whole run on the latter if it escapes.
            LinkageError planted = new LinkageError("planted: a class of this JVM could not be linked");
            service.throwOnFirstRun = planted;

            assertEquals(planted, assertThrows(LinkageError.class,
                    () -> fx.call(service, "interruptible", "rust")));
            assertEquals("rust run 2", fx.call(service, "interruptible", "rust"));
        }

        @Test
        void aJoinerOfAnInterruptedLeaderRunsTheCallItselfInsteadOfReceivingTheInterrupt() throws Throwable {
            CountDownLatch joined = new CountDownLatch(1);
            EngineFixture fx = fixture(b -> b.listener(e -> {
                if (e.type() == IdempotencyEventType.COALESCED) {
                    joined.countDown();
                }
            }));
            service.throwOnFirstRun = new InterruptedException("the leader's thread was interrupted");

            Future<Object> leader = threads.submit(() -> callUnchecked(fx, "interruptible", "rust"));
            awaitOrFail(service.entered);
            Future<Object> joiner = threads.submit(() -> callUnchecked(fx, "interruptible", "rust"));
            awaitOrFail(joined);
            service.mayFinish.countDown();

            assertInstanceOf(InterruptedException.class, causeOf(IllegalStateException.class, leader).getCause());
            assertEquals("rust run 2", await(joiner), "the joiner ran the call itself");
            assertEquals(2, service.runs.get());
        }
    }

    @Nested
    class JoinersWaitLikeCrossProcessWaiters {

        @Test
        void aJoinerGivesUpAfterItsWaitTimeoutWhileTheLeaderHangs() throws Throwable {
            EngineFixture fx = fixture();
            Future<Object> leader = threads.submit(() -> callUnchecked(fx, "hang", "rust"));
            awaitOrFail(service.entered);

            IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
                    () -> fx.call(service, "hang", "rust"));

            assertTrue(e.getMessage().contains("this JVM") && e.getMessage().contains("waitTimeout"), e.getMessage());
            assertEquals(1, fx.count(IdempotencyEventType.COALESCED), "it joined, then gave up");
            assertEquals(1, fx.count(IdempotencyEventType.IN_PROGRESS));
            assertFalse(leader.isDone(), "the leader still runs; the joiner gave up on its own");
            service.mayFinish.countDown();
            assertEquals("rust done", await(leader));
            assertEquals(1, service.runs.get());
        }

        @Test
        void aJoinerInterruptedWhileWaitingGivesUpAndKeepsItsInterrupt() throws Throwable {
            CountDownLatch joined = new CountDownLatch(1);
            EngineFixture fx = fixture(b -> b.listener(e -> {
                if (e.type() == IdempotencyEventType.COALESCED) {
                    joined.countDown();
                }
            }));
            threads.submit(() -> callUnchecked(fx, "slow", "rust"));
            awaitOrFail(service.entered);
            AtomicReference<Boolean> flagAfter = new AtomicReference<>();
            AtomicReference<Thread> joinerThread = new AtomicReference<>();
            Future<Object> joiner = threads.submit(() -> {
                joinerThread.set(Thread.currentThread());
                try {
                    return callUnchecked(fx, "slow", "rust");
                } finally {
                    flagAfter.set(Thread.currentThread().isInterrupted());
                }
            });
            awaitOrFail(joined);
            joinerThread.get().interrupt();

            IdempotencyInProgressException e = causeOf(IdempotencyInProgressException.class, joiner);
            assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
            assertEquals(Boolean.TRUE, flagAfter.get(), "the interrupt is kept for the joiner's caller");
            assertEquals(1, service.runs.get());
        }

        @Test
        void aCompletionStageJoinerGetsTheLeadersValue() throws Throwable {
            EngineFixture fx = fixture();
            CompletableFuture<String> upstream = new CompletableFuture<>();
            service.upstream = upstream;
            CompletableFuture<?> leader = (CompletableFuture<?>) fx.call(service, "async", "rust");
            CompletableFuture<?> joiner = (CompletableFuture<?>) fx.call(service, "async", "rust");

            upstream.complete("rust done");

            assertEquals("rust done", await(joiner));
            assertEquals("rust done", await(leader));
            assertEquals(1, service.runs.get());
        }

        @Test
        void aCompletionStageJoinerGetsTheLeadersFailure() throws Throwable {
            EngineFixture fx = fixture();
            CompletableFuture<String> upstream = new CompletableFuture<>();
            service.upstream = upstream;
            CompletableFuture<?> leader = (CompletableFuture<?>) fx.call(service, "async", "rust");
            CompletableFuture<?> joiner = (CompletableFuture<?>) fx.call(service, "async", "rust");
            IllegalStateException boom = new IllegalStateException("503 from upstream");

            upstream.completeExceptionally(boom);

            assertEquals(boom, causeOf(IllegalStateException.class, joiner));
            assertEquals(boom, causeOf(IllegalStateException.class, leader));
            assertEquals(1, service.runs.get());
        }

        @Test
        void aCompletionStageJoinerOfACancelledLeaderRunsTheCallItself() throws Throwable {
            EngineFixture fx = fixture();
            CompletableFuture<String> upstream = new CompletableFuture<>();
            service.upstream = upstream;
            CompletableFuture<?> leader = (CompletableFuture<?>) fx.call(service, "async", "rust");
            CompletableFuture<?> joiner = (CompletableFuture<?>) fx.call(service, "async", "rust");
            service.upstream = CompletableFuture.completedFuture("rust again");

            upstream.cancel(false); // the leader's own stage was cancelled: that is not the joiner's failure

            assertEquals("rust again", await(joiner));
            assertThrows(java.util.concurrent.CancellationException.class,
                    () -> leader.get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(2, service.runs.get());
        }

        @Test
        void underOnInProgressThrowAJoinerIsRefusedAtOnce() throws Throwable {
            EngineFixture fx = fixture();
            threads.submit(() -> callUnchecked(fx, "hangThrow", "rust"));
            awaitOrFail(service.entered);

            // waitTimeout is an hour: only refusing at once lets this return before the test's timeout.
            IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
                    () -> fx.call(service, "hangThrow", "rust"));

            assertTrue(e.getMessage().contains("onInProgress = THROW"), e.getMessage());
            assertEquals(0, fx.count(IdempotencyEventType.COALESCED));
            assertEquals(1, service.runs.get());
        }

        @Test
        void aCompletionStageJoinerFailsAfterItsWaitTimeoutAndLeavesTheExecutionAlone() throws Throwable {
            EngineFixture fx = fixture();
            CompletableFuture<String> upstream = new CompletableFuture<>();
            service.upstream = upstream;
            CompletableFuture<?> leader = (CompletableFuture<?>) fx.call(service, "hangAsync", "rust");

            CompletableFuture<?> joiner = (CompletableFuture<?>) fx.call(service, "hangAsync", "rust");

            causeOf(IdempotencyInProgressException.class, joiner);
            assertFalse(leader.isDone(), "the shared execution goes on");
            upstream.complete("rust done");
            assertEquals("rust done", await(leader));
            assertEquals(1, service.runs.get());
        }
    }

    @Nested
    class LeaseRenewal {
        private final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");

        @Test
        void aRenewalRefusedBecauseTheExecutionFinishedIsNotALostLease() throws Throwable {
            CountDownLatch renewing = new CountDownLatch(1);
            CountDownLatch completed = new CountDownLatch(1);
            IdempotencyStore store = new DelegatingStore(new InMemoryIdempotencyStore(clock)) {
                @Override
                public boolean renew(String key, long token, Duration lease) {
                    renewing.countDown();
                    awaitOrFail(completed); // the execution completes while this renewal is in flight
                    return super.renew(key, token, lease);
                }

                @Override
                public boolean complete(String key, long token, byte[] result, Duration ttl) {
                    boolean done = super.complete(key, token, result, ttl);
                    completed.countDown();
                    return done;
                }
            };
            EngineFixture fx = shared(store);
            Future<Object> running = threads.submit(() -> callUnchecked(fx, "slow", "rust"));
            awaitOrFail(service.entered);
            clock.advance(Duration.ofSeconds(10)); // a third of the 30 s lease: due for renewal

            Future<?> sweep = threads.submit(fx.heartbeat::beatAll);
            awaitOrFail(renewing);
            service.mayFinish.countDown();

            assertEquals("rust done", await(running));
            await(sweep);
            assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
            assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST), "a stopped beat is not a lost lease");
        }

        @Test
        void aFailedExecutionStopsItsBeat() throws Throwable {
            AtomicInteger renewals = new AtomicInteger();
            EngineFixture fx = shared(new DelegatingStore(new InMemoryIdempotencyStore(clock)) {
                @Override
                public boolean renew(String key, long token, Duration lease) {
                    renewals.incrementAndGet();
                    return super.renew(key, token, lease);
                }
            });
            service.mayFinish.countDown();
            service.throwOnFirstRun = new IllegalStateException("503 from upstream");

            assertThrows(IllegalStateException.class, () -> fx.call(service, "interruptible", "rust"));
            clock.advance(Duration.ofSeconds(10));
            fx.heartbeat.beatAll();

            assertEquals(0, renewals.get());
            assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST));
        }

        @Test
        void theLeaseIsRenewedOnceAThirdOfItHasPassed() throws Throwable {
            EngineFixture fx = shared(new InMemoryIdempotencyStore(clock));
            threads.submit(() -> callUnchecked(fx, "slow", "rust"));
            awaitOrFail(service.entered);
            IdempotencyRecord claimed = onlyRecord(fx);

            clock.advance(Duration.ofSeconds(10).minusMillis(1));
            fx.heartbeat.beatAll();
            assertEquals(claimed.leaseUntil(), onlyRecord(fx).leaseUntil(), "not yet due");

            clock.advance(Duration.ofMillis(1));
            fx.heartbeat.beatAll();
            assertEquals(clock.instant().plusSeconds(30), onlyRecord(fx).leaseUntil(), "renewed at a third");
        }

        @Test
        void aTakeoverIsReportedOnceAsALostLease() throws Throwable {
            EngineFixture fx = shared(new InMemoryIdempotencyStore(clock));
            Future<Object> running = threads.submit(() -> callUnchecked(fx, "slow", "rust"));
            awaitOrFail(service.entered);
            IdempotencyRecord claimed = onlyRecord(fx);
            clock.advance(Duration.ofSeconds(31)); // the beat was starved: the lease passed
            assertInstanceOf(ClaimOutcome.Acquired.class, fx.store.claim(new ClaimRequest(claimed.key(),
                    claimed.payloadHash(), "other-process", Duration.ofSeconds(30), Duration.ZERO)));

            fx.heartbeat.beatAll();
            fx.heartbeat.beatAll();

            assertEquals(1, fx.count(IdempotencyEventType.LEASE_LOST));
            assertTrue(fx.last(IdempotencyEventType.LEASE_LOST).detail().contains("renewed too late"));
            log.assertLogged(Level.WARNING, "LEASE_LOST");
            service.mayFinish.countDown();
            assertEquals("rust done", await(running), "the caller still gets its result");
            assertEquals(2, fx.count(IdempotencyEventType.LEASE_LOST), "and its completion is refused by fencing");
            assertEquals("other-process", fx.store.get(claimed.key()).orElseThrow().owner());
        }

        @Test
        void aRenewalStuckOnOneKeyDelaysNoOtherExecutionsRenewals() throws Throwable {
            // The engine's own heartbeat on the real clock: a lease of 600 ms is renewed every 200 ms.
            CountDownLatch otherRenewals = new CountDownLatch(3);
            CountDownLatch stuck = new CountDownLatch(1);
            IdempotencyStore store = new DelegatingStore(new InMemoryIdempotencyStore()) {
                @Override
                public boolean renew(String key, long token, Duration lease) {
                    if (key.contains(":h:stuck:")) {
                        try {
                            stuck.await(WAIT_SECONDS, TimeUnit.SECONDS);
                        } catch (InterruptedException closing) {
                            // the engine closed (its renewal pool is shut down now) as this renewal began: the test
                            // is over, and an AssertionError here would only be printed by the pool thread
                            Thread.currentThread().interrupt();
                            return false;
                        }
                    } else {
                        otherRenewals.countDown();
                    }
                    return super.renew(key, token, lease);
                }
            };
            try (IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("test")
                    .store("memory", store).build())) {
                Runner runner = new Runner();
                Future<?> stuckCall = threads.submit(() -> invoke(engine, runner, "stuck"));
                Future<?> otherCall = threads.submit(() -> invoke(engine, runner, "other"));

                assertTrue(otherRenewals.await(WAIT_SECONDS, TimeUnit.SECONDS),
                        "the other execution was renewed only " + (3 - otherRenewals.getCount())
                                + " times while one renewal was stuck");
                List<Thread> heartbeatThreads = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("idem-lease-")).toList();
                assertTrue(heartbeatThreads.size() >= 2, "a sweep and renewal threads: " + heartbeatThreads);
                assertTrue(heartbeatThreads.stream().allMatch(Thread::isDaemon),
                        "heartbeat threads never keep a JVM alive: " + heartbeatThreads);
                stuck.countDown();
                runner.mayFinish.countDown();
                await(stuckCall);
                await(otherCall);
            } finally {
                stuck.countDown();
            }
        }

        private EngineFixture shared(IdempotencyStore store) {
            EngineFixture fx = new EngineFixture(store, b -> b.clock(clock));
            service.fx = fx;
            fixtures.add(fx);
            return fx;
        }

        private IdempotencyRecord onlyRecord(EngineFixture fx) {
            return fx.store.get(service.runningKey).orElseThrow(); // the key as the running body saw it
        }
    }

    /** Details of the contract that the suite before this one let a mutant of the engine get away with. */
    @Nested
    class WindowsJoinersAndEntries {

        @Test
        void aTakeoverContinuesTheWindowOfTheFirstStart() throws Throwable {
            EngineFixture fx = fixture();
            IdempotencyRecord learned = learnRecord(fx, "windowed", "rust");
            ClaimOutcome dead = fx.store.claim(new ClaimRequest(learned.key(), learned.payloadHash(), "dead-process",
                    Duration.ofSeconds(30), Duration.ofMinutes(5)));
            assertInstanceOf(ClaimOutcome.Acquired.class, dead);
            fx.clock.advance(Duration.ofSeconds(31)); // the dead owner's lease passed

            assertEquals("rust run 1", fx.call(service, "windowed", "rust"));
            assertEquals(1, fx.count(IdempotencyEventType.TAKEOVER));
            fx.clock.advance(Duration.ofMinutes(4).plusSeconds(30)); // 5m01s after the first start
            assertEquals("rust run 2", fx.call(service, "windowed", "rust"),
                    "the window counts from the dead owner's start, not from the takeover");
            assertEquals(1, fx.count(IdempotencyEventType.LATE_DUPLICATE));
        }

        @Test
        void aResultReplayedFromTheStoreAnswersOnlyUntilTheEndOfItsWindow() throws Throwable {
            EngineFixture fx = fixture();
            assertEquals("rust run 1", fx.call(service, "windowed", "rust"));
            try (EngineFixture other = new EngineFixture(fx.store, b -> b.clock(fx.clock))) {
                fx.clock.advance(Duration.ofMinutes(4));
                assertEquals("rust run 1", other.call(service, "windowed", "rust"));
                assertTrue(other.last(IdempotencyEventType.REPLAYED).detail().contains("store"));
                assertEquals("rust run 1", other.call(service, "windowed", "rust"));
                assertTrue(other.last(IdempotencyEventType.REPLAYED).detail().contains("this JVM"),
                        "a result replayed from the store is kept locally");

                fx.clock.advance(Duration.ofMinutes(1).plusSeconds(1));
                assertEquals("rust run 2", other.call(service, "windowed", "rust"), "its window has passed");
            }
        }

        @Test
        void aJoinerWithTheSameKeyButAnotherPayloadIsAConflictNotAJoin() throws Throwable {
            EngineFixture fx = fixture();
            Future<Object> leader = threads.submit(() -> callUnchecked(fx, "order", "o-17", 1));
            awaitOrFail(service.entered);

            assertThrows(dev.idem.IdempotencyConflictException.class, () -> fx.call(service, "order", "o-17", 2));

            assertEquals(0, fx.count(IdempotencyEventType.COALESCED));
            service.mayFinish.countDown();
            assertEquals("o-17 x1 done", await(leader));
        }

        @Test
        void aCompletionStageExecutionLeavesNoInFlightEntryAndNoBeatBehind() throws Throwable {
            AtomicInteger renewals = new AtomicInteger();
            MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
            IdempotencyStore store = new DelegatingStore(new InMemoryIdempotencyStore(clock)) {
                @Override
                public boolean renew(String key, long token, Duration lease) {
                    renewals.incrementAndGet();
                    return super.renew(key, token, lease);
                }
            };
            EngineFixture fx = new EngineFixture(store, b -> b.clock(clock));
            fixtures.add(fx);
            CompletableFuture<String> upstream = new CompletableFuture<>();
            service.upstream = upstream;

            CompletableFuture<?> call = (CompletableFuture<?>) fx.call(service, "async", "rust");
            assertEquals(1, fx.engine.inFlightCount());
            clock.advance(Duration.ofSeconds(10));
            fx.heartbeat.beatAll();
            assertEquals(1, renewals.get(), "renewed while the stage is pending");
            upstream.complete("rust done");

            assertEquals("rust done", await(call));
            assertEquals(0, fx.engine.inFlightCount(), "the leader's entry is removed when its stage completes");
            clock.advance(Duration.ofSeconds(10));
            fx.heartbeat.beatAll();
            assertEquals(1, renewals.get(), "the beat stopped when the stage completed");
            assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST));
        }

        /** The record a call makes, learned in a throwaway engine on the same clock, as an operator would. */
        private IdempotencyRecord learnRecord(EngineFixture fx, String method, Object... args) throws Throwable {
            try (EngineFixture probe = new EngineFixture(b -> b.clock(fx.clock))) {
                probe.call(new Service(), method, args);
                return probe.store.get(probe.last(IdempotencyEventType.EXECUTED).key()).orElseThrow();
            }
        }
    }

    @Nested
    class Arguments {

        @Test
        void aFailedKeyEncodingLeavesNoReferenceToTheArgumentOnTheThread() throws Throwable {
            EngineFixture fx = fixture();

            WeakReference<Object> argument = callWithACyclicArgument(fx);

            ClassLoading.assertCollected(argument, "the argument of a failed key encoding");
            assertEquals(0, service.runs.get());
        }

        @Test
        void keyAndPayloadOfTheSameParametersAreEncodedOnce() throws Throwable {
            AtomicInteger encodings = new AtomicInteger();
            EngineFixture fx = fixture(b -> b.canonicalizer(new KeyCanonicalizer<Ticket>() {
                @Override
                public Class<Ticket> type() {
                    return Ticket.class;
                }

                @Override
                public Object canonicalize(Ticket ticket) {
                    encodings.incrementAndGet();
                    return ticket.id();
                }
            }));

            assertEquals("t-1", fx.invoke(service, "ticket", new Ticket("t-1")));
            assertEquals(1, encodings.get(), "a first call encodes its arguments once for key and payload");

            assertEquals("t-1", fx.invoke(service, "ticket", new Ticket("t-1")));
            assertEquals(2, encodings.get(), "a replay encodes them once too");
            assertEquals("t-1", fx.call(service, "ticket", new Ticket("t-1")));
            assertEquals(3, encodings.get(), "and so does a replay of a kept result");
            assertEquals("t-2", fx.call(service, "ticket", new Ticket("t-2")));
            assertEquals(4, encodings.get(), "a call that is not kept encodes them once for key and payload");
            assertEquals(2, service.runs.get());
        }

        @Test
        void aScopeWhoseKeysWouldBeLongerThanEveryStoreAcceptsIsRefused() throws Throwable {
            EngineFixture fx = fixture();
            String longTopic = "t".repeat(128); // the longest a placeholder value may be

            IdempotencyKeyException e = assertThrows(IdempotencyKeyException.class,
                    () -> fx.call(service, "partitioned", longTopic));

            assertTrue(e.getMessage().contains(String.valueOf(IdempotencyStore.MAX_KEY_LENGTH)), e.getMessage());
            assertEquals(0, service.runs.get());
            assertEquals("short", fx.call(service, "partitioned", "short"));
        }

        /** Calls with an argument only this frame holds, so once it returns nothing of the test keeps it. */
        private WeakReference<Object> callWithACyclicArgument(EngineFixture fx) {
            List<Object> cyclic = new ArrayList<>();
            cyclic.add("a secret prompt");
            cyclic.add(cyclic);
            IdempotencyKeyException e = assertThrows(IdempotencyKeyException.class,
                    () -> fx.call(service, "keyed", cyclic));
            assertTrue(e.getMessage().contains("cycle"), e.getMessage());
            return new WeakReference<>(cyclic);
        }
    }

    /** Each body counts down {@link #mayFinish}; used with an engine of the test's own. */
    static class Runner {
        final CountDownLatch mayFinish = new CountDownLatch(1);

        @Idempotent(scope = "h:stuck", lease = "600ms")
        String stuck(String topic) {
            awaitOrFail(mayFinish);
            return topic;
        }

        @Idempotent(scope = "h:other", lease = "600ms")
        String other(String topic) {
            awaitOrFail(mayFinish);
            return topic;
        }
    }

    private static Object invoke(IdemEngine engine, Object target, String name) throws Exception {
        java.lang.reflect.Method method = EngineFixture.find(target.getClass(), name);
        try {
            return engine.invoke(method, new Object[] {"rust"}, () -> method.invoke(target, "rust"));
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private Object callUnchecked(EngineFixture fx, String name, Object... args) {
        try {
            return fx.call(service, name, args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Polls a weak reference with garbage collections until it clears, failing at a deadline. */
}
