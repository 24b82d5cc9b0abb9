package dev.idem.core;

import dev.idem.IdempotencyBulkheadFullException;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.idem.core.RetryInsideTheBoundaryTest.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code @Idempotent(maxConcurrent = N)}: a bulkhead per scope, after coalescing, counted by the upstream. */
class BulkheadTest {
    private final EngineFixture fx = new EngineFixture();
    private final SimulatedUpstream upstream;
    private final Client client;

    BulkheadTest() throws Exception {
        upstream = new SimulatedUpstream();
        client = new Client(upstream);
    }

    @AfterEach
    void close() {
        upstream.close();
        fx.close();
    }

    static class Client {
        final SimulatedUpstream upstream;

        Client(SimulatedUpstream upstream) {
            this.upstream = upstream;
        }

        @Idempotent(scope = "b:generate", maxConcurrent = 4, waitTimeout = "60s")
        String generate(@IdempotencyKey String prompt) throws Exception {
            return upstream.generate(prompt);
        }

        @Idempotent(scope = "b:async", maxConcurrent = 2, waitTimeout = "60s")
        CompletableFuture<String> generateAsync(@IdempotencyKey String prompt) {
            return upstream.generateAsync(prompt);
        }

        @Idempotent(scope = "b:one", maxConcurrent = 1, waitTimeout = "0s", failureTtl = "1h")
        String generateOneAtATime(@IdempotencyKey String prompt) throws Exception {
            return upstream.generate(prompt);
        }
    }

    private Object call(String method, Object... args) throws Exception {
        try {
            return fx.call(client, method, args);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Test
    @Timeout(60)
    void fiftyDistinctKeysWithMaxConcurrentFourNeverHaveMoreThanFourRequestsInFlight() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        upstream.during = () -> assertTrue(release.await(30, TimeUnit.SECONDS), "the test never released");
        ExecutorService callers = Executors.newFixedThreadPool(50);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                String prompt = "topic-" + i;
                results.add(callers.submit(() -> call("generate", prompt)));
            }
            // Every call has reached either the upstream or the queue: without the limit, all 50 would be in flight.
            awaitCondition(() -> {
                assertTrue(upstream.maxInFlight.get() <= 4, "in flight at once: " + upstream.maxInFlight.get());
                return upstream.inFlight.get() == 4 && fx.engine.queuedFor("b:generate") == 46;
            });
            release.countDown();

            for (int i = 0; i < 50; i++) {
                assertEquals("article about topic-" + i, results.get(i).get(30, TimeUnit.SECONDS));
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(50, upstream.requests.get());
        assertEquals(4, upstream.maxInFlight.get(), "the upstream saw at most four requests at once");
        assertEquals(0, fx.engine.queuedFor("b:generate"));
    }

    @Test
    @Timeout(60)
    void completionStageMethodsQueueWithoutBlockingAThread() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        upstream.during = () -> assertTrue(release.await(30, TimeUnit.SECONDS), "the test never released");
        List<CompletableFuture<?>> results = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // all from this one thread: a blocking queue would stop at the third
            results.add((CompletableFuture<?>) call("generateAsync", "async-" + i));
        }
        awaitCondition(() -> upstream.inFlight.get() == 2 && fx.engine.queuedFor("b:async") == 8);
        release.countDown();

        for (int i = 0; i < 10; i++) {
            assertEquals("article about async-" + i, results.get(i).get(30, TimeUnit.SECONDS));
        }
        assertEquals(2, upstream.maxInFlight.get());
    }

    @Test
    @Timeout(60)
    void aCallThatFindsNoPermitInTimeFailsWithoutRunningAndIsNotRemembered() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch firstInFlight = new CountDownLatch(1);
        upstream.during = () -> {
            firstInFlight.countDown();
            assertTrue(release.await(30, TimeUnit.SECONDS), "the test never released");
        };
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Object> first = caller.submit(() -> call("generateOneAtATime", "first"));
            assertTrue(firstInFlight.await(30, TimeUnit.SECONDS));

            IdempotencyBulkheadFullException full = assertThrows(IdempotencyBulkheadFullException.class,
                    () -> call("generateOneAtATime", "second"));
            assertTrue(full.getMessage().contains("BulkheadTest$Client#generateOneAtATime"), full.getMessage());
            assertTrue(full.getMessage().contains("maxConcurrent"), full.getMessage());
            release.countDown();
            assertEquals("article about first", first.get(30, TimeUnit.SECONDS));
        } finally {
            caller.shutdownNow();
        }
        upstream.during = () -> {
        };
        // failureTtl is set, yet the refusal was not remembered: the key was released and now runs.
        assertEquals("article about second", call("generateOneAtATime", "second"));
        assertEquals(2, upstream.requests.get());
    }
}
