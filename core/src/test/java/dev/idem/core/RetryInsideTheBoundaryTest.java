package dev.idem.core;

import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.Retry;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Idempotent(retry = @Retry(...))} against a simulated upstream on loopback (SEMANTICS.md section 8): every
 * attempt is the same operation, under one claim. Pauses are recorded by an injected timer that moves the engine's
 * clock, so nothing here waits for a back-off.
 */
class RetryInsideTheBoundaryTest {
    private final RecordingTimer timer = new RecordingTimer();
    private final EngineFixture fx = new EngineFixture(b -> b.retryTimer(timer).retryRandom(RecordingTimer.HIGHEST));
    private final SimulatedUpstream upstream;
    private final Client client;

    RetryInsideTheBoundaryTest() throws Exception {
        timer.fx = fx;
        upstream = new SimulatedUpstream();
        client = new Client(upstream);
    }

    @AfterEach
    void close() {
        upstream.close();
        fx.close();
    }

    /** The application's client of the paid upstream. */
    static class Client {
        final SimulatedUpstream upstream;

        Client(SimulatedUpstream upstream) {
            this.upstream = upstream;
        }

        @Idempotent(scope = "r:generate", retry = @Retry(maxAttempts = 5, base = "100ms", cap = "2s"))
        String generate(@IdempotencyKey String prompt) throws Exception {
            return upstream.generate(prompt);
        }

        @Idempotent(scope = "r:three", retry = @Retry(maxAttempts = 3, base = "100ms", cap = "2s"))
        String generateThreeTimesAtMost(@IdempotencyKey String prompt) throws Exception {
            return upstream.generate(prompt);
        }

        @Idempotent(scope = "r:capped", retry = @Retry(maxAttempts = 2, base = "100ms", cap = "2s",
                maxRetryAfter = "30s"))
        String generateHonouringThirtySeconds(@IdempotencyKey String prompt) throws Exception {
            return upstream.generate(prompt);
        }

        @Idempotent(scope = "r:io-only", retry = @Retry(maxAttempts = 5, base = "100ms",
                on = java.io.IOException.class))
        String generateRetryingIoOnly(@IdempotencyKey String prompt) throws Exception {
            return upstream.generate(prompt);
        }

        @Idempotent(scope = "r:long", lease = "30s", waitTimeout = "60s",
                retry = @Retry(maxAttempts = 4, base = "20s", cap = "20s"))
        String generateOverSeveralLeases(@IdempotencyKey String prompt) throws Exception {
            return upstream.generate(prompt) + " @" + IdempotencyContext().fencingToken();
        }

        @Idempotent(scope = "r:async", retry = @Retry(maxAttempts = 3, base = "100ms", cap = "2s"))
        CompletableFuture<String> generateAsync(@IdempotencyKey String prompt) {
            return upstream.generateAsync(prompt);
        }

        private static dev.idem.IdempotencyContext IdempotencyContext() {
            return dev.idem.IdempotencyContext.current().orElseThrow();
        }
    }

    private Object call(String method, Object... args) throws Throwable {
        return fx.call(client, method, args);
    }

    private List<IdempotencyEvent> events(IdempotencyEventType type) {
        return fx.events.stream().filter(e -> e.type() == type).toList();
    }

    @Test
    @Timeout(30)
    void a429WithRetryAfterThenA503ThenA200IsOneOperationOfThreeAttemptsWithOneRecordedResult() throws Throwable {
        upstream.answer(new SimulatedUpstream.Answer(429, Map.of("Retry-After", "1")), SimulatedUpstream.Answer.of(503));

        assertEquals("article about rust", call("generate", "rust"));

        assertEquals(3, upstream.requests.get(), "three attempts reached the upstream");
        assertEquals(1, new HashSet<>(upstream.idempotencyKeys).size(),
                "every attempt carried the same key and fencing token: " + upstream.idempotencyKeys);
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED), "one operation, one recorded result");
        List<IdempotencyEvent> retries = events(IdempotencyEventType.RETRY);
        assertEquals(List.of(1, 2), retries.stream().map(IdempotencyEvent::attempt).toList());
        // The 429's Retry-After (1s) is the least pause; the 503 had none, so its pause is the jitter's top, base*2.
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofMillis(200)),
                retries.stream().map(IdempotencyEvent::delay).toList());
        assertEquals(timer.sleeps, retries.stream().map(IdempotencyEvent::delay).toList());
        String key = fx.last(IdempotencyEventType.EXECUTED).key();
        assertEquals(RecordState.COMPLETED, fx.store.get(key).orElseThrow().state());

        assertEquals("article about rust", call("generate", "rust"));
        assertEquals(3, upstream.requests.get(), "a duplicate gets the recorded result");
    }

    @Test
    @Timeout(30)
    void aRetryAfterDateIsHonouredAndALongerOneIsCutToTheLimit() throws Throwable {
        String inTwelveSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                fx.clock.instant().plusSeconds(12).atOffset(ZoneOffset.UTC));
        upstream.answer(new SimulatedUpstream.Answer(503, Map.of("Retry-After", inTwelveSeconds)));
        assertEquals("article about a", call("generateHonouringThirtySeconds", "a"));
        assertEquals(List.of(Duration.ofSeconds(12)), timer.sleeps, "the date, though beyond the cap of 2s");

        upstream.answer(new SimulatedUpstream.Answer(429, Map.of("Retry-After", "3600")));
        assertEquals("article about b", call("generateHonouringThirtySeconds", "b"));
        assertEquals(Duration.ofSeconds(30), timer.sleeps.get(1), "an hour is cut to maxRetryAfter");
    }

    @Test
    @Timeout(30)
    void aFailureThatIsNotRetryableIsNotRetriedAndReleasesTheKey() throws Throwable {
        upstream.answer(SimulatedUpstream.Answer.of(400));

        SimulatedUpstream.UpstreamException refused = assertThrows(SimulatedUpstream.UpstreamException.class,
                () -> call("generate", "bad"));

        assertEquals(400, refused.statusCode());
        assertEquals(1, upstream.requests.get());
        assertEquals(0, fx.count(IdempotencyEventType.RETRY));
        assertEquals(0, fx.count(IdempotencyEventType.GAVE_UP));
        assertTrue(timer.sleeps.isEmpty());
        assertEquals("article about bad", call("generate", "bad"), "the key was released: a new call runs");
    }

    @Test
    @Timeout(30)
    void aTypeListRetriesOnlyItsTypesEvenWhenTheStatusWouldBeRetryable() throws Throwable {
        upstream.answer(SimulatedUpstream.Answer.of(503));

        assertThrows(SimulatedUpstream.UpstreamException.class, () -> call("generateRetryingIoOnly", "x"));

        assertEquals(1, upstream.requests.get());
        assertEquals(0, fx.count(IdempotencyEventType.RETRY));
    }

    @Test
    @Timeout(30)
    void whenNoAttemptIsLeftTheLastFailureIsRethrownAndReportedAsGaveUp() throws Throwable {
        upstream.answer(SimulatedUpstream.Answer.of(503), SimulatedUpstream.Answer.of(502),
                SimulatedUpstream.Answer.of(504));

        SimulatedUpstream.UpstreamException last = assertThrows(SimulatedUpstream.UpstreamException.class,
                () -> call("generateThreeTimesAtMost", "down"));

        assertEquals(504, last.statusCode());
        assertEquals(3, upstream.requests.get());
        assertEquals(2, fx.count(IdempotencyEventType.RETRY));
        IdempotencyEvent gaveUp = fx.last(IdempotencyEventType.GAVE_UP);
        assertEquals(3, gaveUp.attempt());
        assertEquals(last, gaveUp.cause());
        assertEquals(0, fx.count(IdempotencyEventType.EXECUTED));
    }

    @Test
    @Timeout(30)
    void theLeaseIsRenewedAcrossAttemptsAndPausesLongerThanIt() throws Throwable {
        // Three pauses of 20s under a 30s lease: without renewals the lease would pass during the second pause.
        upstream.answer(SimulatedUpstream.Answer.of(503), SimulatedUpstream.Answer.of(503),
                SimulatedUpstream.Answer.of(503));
        List<ClaimOutcome> competitors = new ArrayList<>();
        timer.duringSleep = () -> {
            String key = upstream.idempotencyKeys.get(0).substring(0, upstream.idempotencyKeys.get(0).indexOf('#'));
            competitors.add(fx.store.claim(new ClaimRequest(key, "0".repeat(64), "another-process",
                    Duration.ofSeconds(30), Duration.ZERO)));
        };

        String result = (String) call("generateOverSeveralLeases", "long");

        assertEquals(List.of(Duration.ofSeconds(20), Duration.ofSeconds(20), Duration.ofSeconds(20)), timer.sleeps);
        assertEquals(3, competitors.size());
        for (ClaimOutcome competitor : competitors) {
            assertInstanceOf(ClaimOutcome.Existing.class, competitor, "another process could take the key over");
            assertEquals(RecordState.IN_PROGRESS, ((ClaimOutcome.Existing) competitor).record().state());
        }
        long token = Long.parseLong(result.substring(result.indexOf('@') + 1));
        assertEquals(4, upstream.idempotencyKeys.size());
        assertTrue(upstream.idempotencyKeys.stream().allMatch(k -> k.endsWith("#" + token)), "one fencing token");
        assertEquals(0, fx.count(IdempotencyEventType.LEASE_LOST));
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
    }

    @Test
    @Timeout(30)
    void aCompletionStageMethodBacksOffOnTheSchedulerWithoutBlockingItsCaller() throws Throwable {
        upstream.answer(new SimulatedUpstream.Answer(429, Map.of("Retry-After", "1")),
                SimulatedUpstream.Answer.of(503));

        @SuppressWarnings("unchecked")
        CompletableFuture<String> result = (CompletableFuture<String>) call("generateAsync", "async");

        timer.runNextScheduled(); // the second attempt, once the first stage failed
        assertFalse(result.isDone(), "the second attempt failed too; a third is scheduled");
        timer.runNextScheduled();
        assertEquals("article about async", result.get(10, TimeUnit.SECONDS));
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofMillis(200)), timer.scheduled);
        assertTrue(timer.sleeps.isEmpty(), "no thread slept");
        assertEquals(3, upstream.requests.get());
        assertEquals(1, new HashSet<>(upstream.idempotencyKeys).size(), "every attempt ran in the execution's context");
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
    }

    @Test
    @Timeout(60)
    void aHundredConcurrentCallersOfOneKeyThroughThreeFailingAttemptsCostFourRequests() throws Throwable {
        upstream.answer(SimulatedUpstream.Answer.of(503), SimulatedUpstream.Answer.of(429),
                SimulatedUpstream.Answer.of(503));
        CountDownLatch allJoined = new CountDownLatch(1);
        upstream.during = () -> {
            if (upstream.requests.get() == 1) { // hold the first attempt until every other caller has joined it
                assertTrue(allJoined.await(30, TimeUnit.SECONDS), "the other callers did not join");
            }
        };
        ExecutorService callers = Executors.newFixedThreadPool(100);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                results.add(callers.submit(() -> callQuietly("generate", "hot")));
            }
            awaitCondition(() -> fx.count(IdempotencyEventType.COALESCED) == 99);
            allJoined.countDown();

            for (Future<Object> result : results) {
                assertEquals("article about hot", result.get(30, TimeUnit.SECONDS));
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(4, upstream.requests.get(), "3 failing attempts and the one that succeeded, for 100 callers");
        assertEquals(3, fx.count(IdempotencyEventType.RETRY));
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
    }

    @Test
    @Timeout(60)
    void aCallerThatGivesUpDoesNotCancelTheRetriesForTheOthers() throws Throwable {
        upstream.answer(SimulatedUpstream.Answer.of(503), SimulatedUpstream.Answer.of(503));
        CountDownLatch quitterLeft = new CountDownLatch(1);
        timer.duringSleep = () -> {
            try { // the first pause lasts until the quitter has given up
                assertTrue(quitterLeft.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        };
        ExecutorService callers = Executors.newFixedThreadPool(2);
        AtomicReference<Throwable> quitterGot = new AtomicReference<>();
        Thread quitter = new Thread(() -> {
            try {
                callQuietly("generate", "steady");
            } catch (Throwable t) {
                quitterGot.set(t);
            }
        });
        try {
            Future<Object> leader = callers.submit(() -> callQuietly("generate", "steady"));
            awaitCondition(() -> fx.count(IdempotencyEventType.RETRY) == 1); // the leader is in its first pause
            Future<Object> stayer = callers.submit(() -> callQuietly("generate", "steady"));
            quitter.start();
            awaitCondition(() -> fx.count(IdempotencyEventType.COALESCED) == 2);
            quitter.interrupt(); // this caller gives up waiting
            quitter.join(TimeUnit.SECONDS.toMillis(10));
            assertInstanceOf(IdempotencyInProgressException.class, quitterGot.get());
            quitterLeft.countDown();

            assertEquals("article about steady", leader.get(30, TimeUnit.SECONDS));
            assertEquals("article about steady", stayer.get(30, TimeUnit.SECONDS));
        } finally {
            callers.shutdownNow();
        }
        assertEquals(3, upstream.requests.get(), "the attempts went on to the end");
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
    }

    private Object callQuietly(String method, Object... args) throws Exception {
        try {
            return call(method, args);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Waits until {@code condition} holds; fails after 30 seconds rather than hang. */
    static void awaitCondition(Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the condition did not come true within 30s");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
