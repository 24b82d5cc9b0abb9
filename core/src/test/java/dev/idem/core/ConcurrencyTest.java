package dev.idem.core;

import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Coalescing and the in-flight map under real contention. Waits are on conditions, never on elapsed time. */
class ConcurrencyTest {
    private final EngineFixture fx = new EngineFixture();
    private final ExecutorService pool = Executors.newFixedThreadPool(64);

    @AfterEach
    void close() {
        pool.shutdownNow();
        fx.close();
    }

    static class Service {
        final Map<String, AtomicInteger> runsByKey = new ConcurrentHashMap<>();
        final AtomicInteger runs = new AtomicInteger();
        volatile Callable<Void> during = () -> null;
        volatile boolean failing;

        @Idempotent(scope = "c:generate")
        String generate(String prompt) throws Exception {
            runs.incrementAndGet();
            runsByKey.computeIfAbsent(prompt, k -> new AtomicInteger()).incrementAndGet();
            during.call();
            if (failing) {
                throw new IllegalStateException("upstream 500 for " + prompt);
            }
            return "article about " + prompt;
        }

        @Idempotent(scope = "c:async")
        CompletableFuture<String> generateAsync(@IdempotencyKey String prompt, CompletableFuture<String> upstream) {
            runs.incrementAndGet();
            return upstream;
        }
    }

    private final Service service = new Service();

    private <T> List<Future<T>> submitAll(int n, Callable<T> task) {
        List<Future<T>> futures = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        for (int i = 0; i < n; i++) {
            futures.add(pool.submit(() -> {
                start.await();
                return task.call();
            }));
        }
        start.countDown();
        return futures;
    }

    private Object call(String method, Object... args) {
        try {
            return fx.call(service, method, args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Blocks the running execution until {@code joiners} callers have joined it. */
    private Callable<Void> holdUntilJoined(int joiners) {
        return () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (fx.count(IdempotencyEventType.COALESCED) < joiners) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + fx.count(IdempotencyEventType.COALESCED) + " joined");
                }
                Thread.onSpinWait();
            }
            return null;
        };
    }

    @Test
    @Timeout(60)
    void sixtyFourConcurrentCallersOfOneKeyRunTheBodyOnceAndAllGetTheResult() throws Exception {
        service.during = holdUntilJoined(63);

        List<Future<Object>> results = submitAll(64, () -> call("generate", "same prompt"));

        for (Future<Object> result : results) {
            assertEquals("article about same prompt", result.get(30, TimeUnit.SECONDS));
        }
        assertEquals(1, service.runs.get());
        assertEquals(63, fx.count(IdempotencyEventType.COALESCED));
        assertEquals(0, fx.engine.inFlightCount());
    }

    @Test
    @Timeout(120)
    void tenThousandCallsOverFiveHundredKeysFromEightThreadsRunOncePerKey() throws Exception {
        ExecutorService eight = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int w = 0; w < 8; w++) {
                int worker = w;
                workers.add(eight.submit(() -> {
                    start.await();
                    int checked = 0;
                    for (int i = 0; i < 1250; i++) {
                        String prompt = "prompt-" + ((i * 7 + worker * 131) % 500);
                        assertEquals("article about " + prompt, call("generate", prompt));
                        checked++;
                    }
                    return checked;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> worker : workers) {
                total += worker.get(60, TimeUnit.SECONDS);
            }
            assertEquals(10_000, total);
        } finally {
            eight.shutdownNow();
        }
        assertEquals(500, service.runsByKey.size());
        assertEquals(500, service.runs.get(), "executions == distinct keys");
        assertTrue(service.runsByKey.values().stream().allMatch(n -> n.get() == 1));
    }

    @Test
    @Timeout(30)
    void oneCallerCancellingItsFutureNeitherCancelsTheExecutionNorTheOtherCallers() throws Exception {
        CompletableFuture<String> upstream = new CompletableFuture<>();
        @SuppressWarnings("unchecked")
        CompletableFuture<String> first = (CompletableFuture<String>) call("generateAsync", "p", upstream);
        @SuppressWarnings("unchecked")
        CompletableFuture<String> second = (CompletableFuture<String>) call("generateAsync", "p", upstream);

        assertTrue(first.cancel(true));
        upstream.complete("done");

        assertEquals("done", second.get(5, TimeUnit.SECONDS));
        assertFalse(upstream.isCancelled(), "the shared execution was not cancelled");
        assertThrows(CancellationException.class, first::join);
        assertEquals(1, service.runs.get());
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
    }

    @Test
    @Timeout(60)
    void anInterruptedWaiterLeavesWhileTheExecutionAndTheOtherWaitersGoOn() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        service.during = () -> {
            running.countDown();
            release.await();
            return null;
        };
        Future<Object> leader = pool.submit(() -> call("generate", "p"));
        assertTrue(running.await(30, TimeUnit.SECONDS), "the leader did not start running within 30 s");
        Future<Object> patient = pool.submit(() -> call("generate", "p"));
        AtomicReference<Thread> impatientThread = new AtomicReference<>();
        Future<Object> impatient = pool.submit(() -> {
            impatientThread.set(Thread.currentThread());
            return call("generate", "p");
        });
        holdUntilJoined(2).call();

        impatientThread.get().interrupt();
        java.util.concurrent.ExecutionException left = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> impatient.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IdempotencyInProgressException.class, left.getCause());
        release.countDown();

        assertEquals("article about p", leader.get(10, TimeUnit.SECONDS));
        assertEquals("article about p", patient.get(10, TimeUnit.SECONDS));
        assertEquals(1, service.runs.get());
    }

    @Test
    @Timeout(60)
    void aFailedExecutionLeavesNoInFlightEntryBehindEvenUnderContention() throws Exception {
        for (int round = 0; round < 200; round++) {
            String prompt = "round-" + round;
            service.failing = true;
            List<Future<Object>> failures = submitAll(8, () -> call("generate", prompt));
            // Each execution throws an exception of its own; callers that joined one share its instance.
            Set<Throwable> thrown = Collections.newSetFromMap(new IdentityHashMap<>());
            for (Future<Object> f : failures) {
                java.util.concurrent.ExecutionException e = assertThrows(
                        java.util.concurrent.ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                assertInstanceOf(IllegalStateException.class, e.getCause());
                thrown.add(e.getCause());
            }
            int failedRuns = service.runsByKey.get(prompt).get();
            assertEquals(failedRuns, thrown.size(), "every caller got the failure of an execution that ran");
            service.failing = false;
            // Had the failed execution stayed registered, this call would join it and throw again.
            assertEquals("article about " + prompt, call("generate", prompt));
            assertEquals(failedRuns + 1, service.runsByKey.get(prompt).get(), "the retry ran the method");
            assertEquals("article about " + prompt, call("generate", prompt));
            assertEquals(failedRuns + 1, service.runsByKey.get(prompt).get(), "and its result is replayed");
        }
        assertEquals(0, fx.engine.inFlightCount());
    }
}
