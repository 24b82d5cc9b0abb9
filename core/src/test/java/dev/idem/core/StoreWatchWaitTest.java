package dev.idem.core;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.KeyWatchers;
import org.junit.jupiter.api.AfterEach;
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
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** An execution running through {@code engine}, started when this returns, until {@link #finish}. */
    private final class Running {
        final CountDownLatch finish = new CountDownLatch(1);
        final Future<String> result;

        Running(EngineFixture engine, String value) throws InterruptedException {
            CountDownLatch started = new CountDownLatch(1);
            result = threads.submit(() -> call(engine, () -> {
                started.countDown();
                assertTrue(finish.await(20, TimeUnit.SECONDS));
                return value;
            }));
            assertTrue(started.await(10, TimeUnit.SECONDS));
        }
    }

    private EngineFixture ownersEngine() {
        return new EngineFixture(new DelegatingStore(backendStore), b -> {
        });
    }

    private static EngineFixture waitersEngine(Hooked store, Duration recheck) {
        return new EngineFixture(store, b -> b.waitRecheck(recheck));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWaiterIsWokenByTheCompletionAndClaimsThreeTimesInAll() throws Exception {
        Hooked waiterStore = new Hooked(backendStore);
        try (EngineFixture owner = ownersEngine();
             EngineFixture waiter = waitersEngine(waiterStore, Duration.ofMinutes(1))) {
            Running running = new Running(owner, "report 7");
            Future<String> waited = threads.submit(() -> call(waiter, () -> "ran twice"));
            assertTrue(waiterStore.rechecked.await(10, TimeUnit.SECONDS), "the waiter opens a watch and claims");
            running.finish.countDown(); // the waiter found it in progress after opening its watch: it awaits

            assertEquals("report 7", running.result.get(20, TimeUnit.SECONDS));
            assertEquals("report 7", waited.get(20, TimeUnit.SECONDS), "the waiter gets the owner's result");
            assertEquals(3, waiterStore.claims.get(), "the first claim, the claim after opening the watch and"
                    + " the claim after the signal");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCompletionBetweenTheFirstClaimAndTheWatchIsNotMissed() throws Exception {
        Hooked waiterStore = new Hooked(backendStore);
        try (EngineFixture owner = ownersEngine();
             EngineFixture waiter = waitersEngine(waiterStore, Duration.ofMinutes(1))) {
            Running running = new Running(owner, "report 8");
            // The owner completes after the waiter's first claim and before its watch is registered: no signal
            // reaches the watch, so only the claim made after opening it can find the result.
            waiterStore.beforeWatch = () -> {
                running.finish.countDown();
                try {
                    running.result.get(20, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            assertEquals("report 8", call(waiter, () -> "ran twice"));
            assertEquals(2, waiterStore.claims.get(), "the first claim and the claim after opening the watch");
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
        try (EngineFixture owner = ownersEngine();
             EngineFixture waiter = waitersEngine(waiterStore, Duration.ofMillis(50))) {
            Running running = new Running(owner, "report 9");
            Future<String> waited = threads.submit(() -> call(waiter, () -> "ran twice"));
            assertTrue(waiterStore.watching.await(10, TimeUnit.SECONDS));
            running.finish.countDown();

            assertEquals("report 9", running.result.get(20, TimeUnit.SECONDS));
            assertEquals("report 9", waited.get(20, TimeUnit.SECONDS), "the re-check finds the result");
            assertTrue(silent.watchedKeys().isEmpty(), "every watch the wait opened is closed");
        }
    }

    private static String call(EngineFixture fixture, java.util.concurrent.Callable<String> body) throws Exception {
        IdempotentOperation<String> operation = fixture.engine.operation(POLICY, String.class);
        return operation.call(body, "report-7");
    }
}
