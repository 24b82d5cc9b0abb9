package dev.idem.core.internal.plan;

import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.store.StoreCircuit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StoreCircuit}: closed it admits everything; opened by an outage it refuses at once, naming the operation and
 * the last failure; one probe scheduled at a time, after a back-off that doubles up to the longest, never on a
 * caller's thread; a probe that reaches the server closes it. The probes are run by the test, so nothing sleeps.
 */
class StoreCircuitTest {
    private static final Duration FIRST = Duration.ofMillis(100);
    private static final Duration LONGEST = Duration.ofSeconds(5);

    /** A probe the circuit scheduled, and after how long. */
    private record Scheduled(Runnable probe, Duration delay) {
    }

    private final List<Scheduled> scheduled = new ArrayList<>();
    private final AtomicInteger probeRuns = new AtomicInteger();
    private volatile RuntimeException probeFails = new IllegalStateException("still down");
    private final StoreCircuit circuit = new StoreCircuit("test store", key -> "scope of " + key, () -> {
        probeRuns.incrementAndGet();
        if (probeFails != null) {
            throw probeFails;
        }
    }, FIRST, LONGEST, System::nanoTime, (probe, delay) -> scheduled.add(new Scheduled(probe, delay)));

    private IdempotencyStoreUnreachableException refused() {
        return assertThrows(IdempotencyStoreUnreachableException.class, () -> circuit.admit("claim", "k"));
    }

    /** Runs the one probe scheduled, after checking it is the only one and that its delay is within bounds. */
    private void runTheProbe(Duration atLeast, Duration atMost) {
        assertEquals(1, scheduled.size(), "one probe scheduled: " + scheduled);
        Scheduled next = scheduled.remove(0);
        assertTrue(next.delay().compareTo(atLeast) >= 0 && next.delay().compareTo(atMost) <= 0,
                next.delay() + " within [" + atLeast + ", " + atMost + "]");
        next.probe().run();
    }

    @Test
    void aClosedCircuitAdmitsEveryCall() {
        for (int i = 0; i < 3; i++) {
            circuit.admit("claim", "k");
        }
        assertFalse(circuit.isOpen());
        assertTrue(scheduled.isEmpty());
    }

    @Test
    void anOpenCircuitRefusesAtOnceNamingTheOperationAndTheLastFailure() {
        IOException down = new IOException("connection refused");
        circuit.open(down);
        IdempotencyStoreUnreachableException e = refused();
        assertSame(down, e.getCause());
        assertTrue(e.getMessage().startsWith("test store: claim of scope of k refused without trying"),
                e.getMessage());
        assertTrue(e.getMessage().contains("connection refused"), e.getMessage());
        assertEquals(0, probeRuns.get(), "refusing never probes on the caller's thread");
    }

    @Test
    void manyRefusalsAndOpeningsAgainScheduleOneProbe() {
        circuit.open(new IOException("down"));
        for (int i = 0; i < 10; i++) {
            refused();
            circuit.open(new IOException("down again"));
        }
        assertEquals(1, scheduled.size(), "one probe, after the first back-off");
        assertEquals(FIRST, scheduled.get(0).delay());
        assertTrue(refused().getMessage().contains("down again"), "the latest failure is the reason");
    }

    @Test
    void aFailedProbeDoublesTheBackOffUpToTheLongestAndAProbeThatReachesTheServerCloses() {
        circuit.open(new IOException("down"));
        runTheProbe(FIRST, FIRST);
        assertTrue(circuit.isOpen());
        assertTrue(refused().getMessage().contains("still down"), "the probe's failure is the latest");
        runTheProbe(FIRST, FIRST.multipliedBy(2)); // 200 ms, jittered down to no less than half
        runTheProbe(FIRST.multipliedBy(2), FIRST.multipliedBy(4));
        for (int i = 0; i < 8; i++) {
            runTheProbe(Duration.ZERO, LONGEST);
        }
        runTheProbe(LONGEST.dividedBy(2), LONGEST);
        assertEquals(12, probeRuns.get());

        probeFails = null;
        runTheProbe(LONGEST.dividedBy(2), LONGEST);
        assertFalse(circuit.isOpen());
        assertTrue(scheduled.isEmpty(), "closed: nothing more to probe");
        circuit.admit("claim", "k");

        circuit.open(new IOException("down once more"));
        assertEquals(FIRST, scheduled.get(0).delay(), "a new outage starts from the first back-off");
    }

    @Test
    void aClosedCircuitObjectRunsNoProbe() {
        circuit.open(new IOException("down"));
        circuit.close();
        scheduled.remove(0).probe().run();
        assertEquals(0, probeRuns.get());
        assertTrue(scheduled.isEmpty());
        refused();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void manyCallersRefusedTogetherWhileTheRealSchedulersProbeIsHeldShareThatOneProbe() throws Exception {
        CountDownLatch probeStarted = new CountDownLatch(1);
        CountDownLatch probeHeld = new CountDownLatch(1);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        StoreCircuit real = new StoreCircuit("test store", key -> key, () -> {
            started.incrementAndGet();
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            probeStarted.countDown();
            try {
                assertTrue(probeHeld.await(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inFlight.decrementAndGet();
            }
        });
        real.open(new IOException("down"));
        assertTrue(probeStarted.await(20, TimeUnit.SECONDS), "the probe runs by itself, with no call to start it");
        int callers = 16;
        CyclicBarrier together = new CyclicBarrier(callers);
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                calls.add(threads.submit(() -> {
                    together.await();
                    for (int n = 0; n < 100; n++) {
                        assertThrows(IdempotencyStoreUnreachableException.class, () -> real.admit("claim", "k"));
                        real.open(new IOException("down, seen again"));
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get();
            }
            assertEquals(1, started.get(), "1,600 refusals and reopenings, one probe");
            probeHeld.countDown();
            while (real.isOpen()) {
                Thread.onSpinWait(); // the probe returned, so the circuit closes: bounded by the timeout
            }
            assertEquals(1, mostInFlight.get());
            real.admit("claim", "k");
        } finally {
            threads.shutdownNow();
            real.close();
        }
    }
}
