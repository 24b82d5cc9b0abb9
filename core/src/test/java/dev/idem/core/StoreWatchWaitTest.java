package dev.idem.core;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.KeyWatchers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A caller waiting for an execution that runs in another engine (as in another process) over a store that offers
 * watches: it is woken by the store's signal, not by polling; a completion between its first claim and its watch is
 * not missed; and a lost signal is caught by the re-check ({@code idem.waitRecheck}). Each engine has a store of its
 * own over one backend (one in-memory store), as two processes would.
 *
 * <p>The tests that must be woken by a signal set the re-check to a minute, past the waiter's ten-second wait
 * timeout: a waiter that was not woken would fail with IdempotencyInProgressException.
 */
class StoreWatchWaitTest {
    private static final IdempotencyPolicy POLICY = IdempotencyPolicy.custom().operation("Reports#build")
            .scope("lab:reports").waitTimeout(Duration.ofSeconds(10)).build();

    /** The backend's store seen through hooks: counts claims and watches, and runs a hook before a watch opens. */
    private static class Hooked extends DelegatingStore {
        final AtomicInteger claims = new AtomicInteger();
        final CountDownLatch watching = new CountDownLatch(1);
        /** Counted down when the second claim (the one after opening the watch) has its answer. */
        final CountDownLatch rechecked = new CountDownLatch(1);
        volatile Runnable beforeWatch = () -> {
        };

        Hooked(IdempotencyStore backend) {
            super(backend);
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            int claim = claims.incrementAndGet();
            ClaimOutcome outcome = super.claim(request);
            if (claim == 2) {
                rechecked.countDown();
            }
            return outcome;
        }

        @Override
        public Optional<KeyWatch> watch(String key) {
            beforeWatch.run();
            Optional<KeyWatch> watch = delegateWatch(key);
            watching.countDown();
            return watch;
        }

        Optional<KeyWatch> delegateWatch(String key) {
            return delegate.watch(key);
        }
    }

    private final InMemoryIdempotencyStore backendStore = new InMemoryIdempotencyStore();

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWaiterIsWokenByTheCompletionAndClaimsThreeTimesInAll() throws Exception {
        Hooked waiterStore = new Hooked(backendStore);
        try (EngineFixture owner = new EngineFixture(new DelegatingStore(backendStore), b -> {
        }); EngineFixture waiter = new EngineFixture(waiterStore, b -> b.waitRecheck(Duration.ofMinutes(1)))) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                Future<String> owned = threads.submit(() -> call(owner, () -> {
                    started.countDown();
                    assertTrue(finish.await(20, TimeUnit.SECONDS));
                    return "report 7";
                }));
                assertTrue(started.await(10, TimeUnit.SECONDS));
                Future<String> waited = threads.submit(() -> call(waiter, () -> "ran twice"));
                assertTrue(waiterStore.rechecked.await(10, TimeUnit.SECONDS), "the waiter opens a watch and claims");
                finish.countDown(); // the waiter found the execution in progress after opening its watch: it awaits

                assertEquals("report 7", owned.get(20, TimeUnit.SECONDS));
                assertEquals("report 7", waited.get(20, TimeUnit.SECONDS), "the waiter gets the owner's result");
                assertEquals(3, waiterStore.claims.get(), "the first claim, the claim after opening the watch and"
                        + " the claim after the signal");
            } finally {
                threads.shutdownNow();
            }
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCompletionBetweenTheFirstClaimAndTheWatchIsNotMissed() throws Exception {
        Hooked waiterStore = new Hooked(backendStore);
        try (EngineFixture owner = new EngineFixture(new DelegatingStore(backendStore), b -> {
        }); EngineFixture waiter = new EngineFixture(waiterStore, b -> b.waitRecheck(Duration.ofMinutes(1)))) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                Future<String> owned = threads.submit(() -> call(owner, () -> {
                    started.countDown();
                    assertTrue(finish.await(20, TimeUnit.SECONDS));
                    return "report 8";
                }));
                assertTrue(started.await(10, TimeUnit.SECONDS));
                // The owner completes after the waiter's first claim and before its watch is registered: no signal
                // reaches the watch, so only the claim made after opening it can find the result.
                waiterStore.beforeWatch = () -> {
                    finish.countDown();
                    try {
                        owned.get(20, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                };
                assertEquals("report 8", call(waiter, () -> "ran twice"));
                assertEquals(2, waiterStore.claims.get(), "the first claim and the claim after opening the watch");
            } finally {
                threads.shutdownNow();
            }
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLostSignalIsCaughtByTheRecheck() throws Exception {
        KeyWatchers silent = new KeyWatchers(); // nobody signals these
        Hooked waiterStore = new Hooked(backendStore) {
            @Override
            Optional<KeyWatch> delegateWatch(String key) {
                return Optional.of(silent.watch(key));
            }
        };
        try (EngineFixture owner = new EngineFixture(new DelegatingStore(backendStore), b -> {
        }); EngineFixture waiter = new EngineFixture(waiterStore, b -> b.waitRecheck(Duration.ofMillis(50)))) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                Future<String> owned = threads.submit(() -> call(owner, () -> {
                    started.countDown();
                    assertTrue(finish.await(20, TimeUnit.SECONDS));
                    return "report 9";
                }));
                assertTrue(started.await(10, TimeUnit.SECONDS));
                Future<String> waited = threads.submit(() -> call(waiter, () -> "ran twice"));
                assertTrue(waiterStore.watching.await(10, TimeUnit.SECONDS));
                finish.countDown();

                assertEquals("report 9", owned.get(20, TimeUnit.SECONDS));
                assertEquals("report 9", waited.get(20, TimeUnit.SECONDS), "the re-check finds the result");
                assertTrue(silent.watchedKeys().isEmpty(), "every watch the wait opened is closed");
            } finally {
                threads.shutdownNow();
            }
        }
    }

    private static String call(EngineFixture fixture, java.util.concurrent.Callable<String> body) throws Exception {
        IdempotentOperation<String> operation = fixture.engine.operation(POLICY, String.class);
        return operation.call(body, "report-7");
    }
}
