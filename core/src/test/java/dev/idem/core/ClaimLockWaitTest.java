package dev.idem.core;

import dev.idem.IdempotencyInProgressException;
import dev.idem.OnInProgress;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the engine lets a claim wait on another transaction's hold of the key's row ({@link ClaimRequest#lockWait()}):
 * the caller's {@code waitTimeout}, but at least {@link OperationPlan#MIN_LOCK_WAIT} (just that with
 * {@code onInProgress = THROW}), and while the caller waits for an execution elsewhere only what is left of it,
 * counting the first claim's own wait. The execution elsewhere runs in
 * another engine over the same in-memory store, as in another process.
 */
class ClaimLockWaitTest {
    private static final IdempotencyPolicy POLICY = IdempotencyPolicy.custom().operation("Reports#build")
            .scope("lab:lock-wait").waitTimeout(Duration.ofMillis(300)).build();

    /** The waiter's store: records each claim's lock wait; its first claim waits that long, as on a held row. */
    private static final class Recording extends DelegatingStore {
        final List<Duration> lockWaits = new CopyOnWriteArrayList<>();
        volatile boolean firstClaimWaits;

        Recording(IdempotencyStore backend) {
            super(backend);
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            lockWaits.add(request.lockWait());
            if (firstClaimWaits && lockWaits.size() == 1) {
                try {
                    // stands for the database's wait on a row lock nobody releases, bounded by the lock wait
                    new CountDownLatch(1).await(request.lockWait().toNanos(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.claim(request);
        }
    }

    private final InMemoryIdempotencyStore backend = new InMemoryIdempotencyStore();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final CountDownLatch finish = new CountDownLatch(1);

    @AfterEach
    void stop() {
        finish.countDown();
        threads.shutdownNow();
    }

    /** Starts an execution of the key in {@code owner}, running until {@link #finish}. */
    private Future<String> running(EngineFixture owner) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        IdempotentOperation<String> operation = owner.engine.operation(POLICY, String.class);
        Callable<String> body = () -> {
            started.countDown();
            assertTrue(finish.await(20, TimeUnit.SECONDS));
            return "report";
        };
        Future<String> result = threads.submit(() -> operation.call(body, "r-1"));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        return result;
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theFirstClaimWaitsUpToTheWaitTimeoutAndThatWaitCounts() throws Exception {
        Recording waiterStore = new Recording(backend);
        waiterStore.firstClaimWaits = true;
        try (EngineFixture owner = new EngineFixture(new DelegatingStore(backend), b -> { });
             EngineFixture waiter = new EngineFixture(waiterStore, b -> { })) {
            running(owner);
            assertThrows(IdempotencyInProgressException.class,
                    () -> waiter.engine.operation(POLICY, String.class).call(() -> "ran twice", "r-1"));
            assertEquals(List.of(Duration.ofMillis(300)), waiterStore.lockWaits,
                    "one claim, allowed the caller's waitTimeout, which its wait used up: no further claim");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void withOnInProgressThrowTheClaimWaitsOnlyForARacingClaimsCommit() throws Exception {
        Recording waiterStore = new Recording(backend);
        try (EngineFixture owner = new EngineFixture(new DelegatingStore(backend), b -> { });
             EngineFixture waiter = new EngineFixture(waiterStore, b -> { })) {
            running(owner);
            IdempotencyPolicy impatient = IdempotencyPolicy.from(POLICY).onInProgress(OnInProgress.THROW)
                    .waitTimeout(Duration.ofSeconds(10)).build();
            assertThrows(IdempotencyInProgressException.class,
                    () -> waiter.engine.operation(impatient, String.class).call(() -> "ran twice", "r-1"));
            // Not zero: a caller that lost the race for a new key must see the winner's record, not a stand-in.
            // Not the waitTimeout: THROW waits for no execution, nor for a transaction that holds the key.
            assertEquals(List.of(OperationPlan.MIN_LOCK_WAIT), waiterStore.lockWaits);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWaitTimeoutShorterThanARacingClaimsCommitStillLetsTheClaimWaitForIt() throws Exception {
        Recording waiterStore = new Recording(backend);
        try (EngineFixture owner = new EngineFixture(new DelegatingStore(backend), b -> { });
             EngineFixture waiter = new EngineFixture(waiterStore, b -> { })) {
            running(owner);
            IdempotencyPolicy hasty = IdempotencyPolicy.from(POLICY).waitTimeout(Duration.ZERO).build();
            assertThrows(IdempotencyInProgressException.class,
                    () -> waiter.engine.operation(hasty, String.class).call(() -> "ran twice", "r-1"));
            assertEquals(List.of(OperationPlan.MIN_LOCK_WAIT), waiterStore.lockWaits);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void whileWaitingForAnExecutionElsewhereEachClaimMayWaitOnlyWhatIsLeft() throws Exception {
        Recording waiterStore = new Recording(backend);
        IdempotencyPolicy patient = IdempotencyPolicy.from(POLICY).waitTimeout(Duration.ofSeconds(10)).build();
        try (EngineFixture owner = new EngineFixture(new DelegatingStore(backend), b -> { });
             EngineFixture waiter = new EngineFixture(waiterStore, b -> { })) {
            Future<String> first = running(owner);
            IdempotentOperation<String> operation = waiter.engine.operation(patient, String.class);
            Future<String> waited = threads.submit(() -> operation.call(() -> "ran twice", "r-1"));
            while (waiterStore.lockWaits.size() < 3) {
                TimeUnit.MILLISECONDS.sleep(5); // polling an observable count, not hoping for an order
            }
            finish.countDown();
            assertEquals("report", first.get(20, TimeUnit.SECONDS));
            assertEquals("report", waited.get(20, TimeUnit.SECONDS));

            List<Duration> waits = waiterStore.lockWaits;
            assertEquals(Duration.ofSeconds(10), waits.get(0), "the first claim: the caller's waitTimeout");
            for (int i = 1; i < waits.size(); i++) {
                assertTrue(waits.get(i).compareTo(waits.get(i - 1)) <= 0 && waits.get(i).compareTo(waits.get(0)) < 0,
                        "claim " + (i + 1) + " may wait only what is left of the caller's wait: " + waits);
            }
        }
    }
}
