package dev.idem.core.internal.retry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bulkhead alone: first come first served, timeouts that leave the queue, and no permit lost in a race. */
class BulkheadUnitTest {

    @Test
    @Timeout(10)
    void waitersAreServedInArrivalOrderAndATimedOutOneIsSkipped() throws Exception {
        Bulkhead bulkhead = new Bulkhead(1);
        assertTrue(bulkhead.acquire(Duration.ZERO));
        CompletableFuture<Void> first = bulkhead.acquireAsync(Duration.ofMinutes(1));
        CompletableFuture<Void> leaving = bulkhead.acquireAsync(Duration.ofMillis(1));
        CompletableFuture<Void> third = bulkhead.acquireAsync(Duration.ofMinutes(1));
        ExecutionException timedOut = assertThrows(ExecutionException.class, () -> leaving.get(5, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, timedOut.getCause());
        assertEquals(2, bulkhead.waiting());

        bulkhead.release();
        assertTrue(first.isDone() && !third.isDone(), "the permit went to the first in line");
        bulkhead.release();
        assertTrue(third.isDone(), "the one that left was skipped, and lost no permit");
        assertFalse(bulkhead.acquire(Duration.ZERO), "both permits are held");
        bulkhead.release();
        assertTrue(bulkhead.acquire(Duration.ZERO));
    }

    @Test
    @Timeout(10)
    void anInterruptedWaiterLeavesTheQueueHoldingNoPermit() throws Exception {
        Bulkhead bulkhead = new Bulkhead(1);
        assertTrue(bulkhead.acquire(Duration.ZERO));
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                outcome.complete(bulkhead.acquire(Duration.ofMinutes(1)) ? null : new AssertionError("timed out"));
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiter.start();
        while (bulkhead.waiting() == 0) {
            Thread.onSpinWait();
        }
        waiter.interrupt();
        assertInstanceOf(InterruptedException.class, outcome.get(5, TimeUnit.SECONDS));
        assertEquals(0, bulkhead.waiting(), "it left the queue");
        assertFalse(bulkhead.acquire(Duration.ZERO), "the one permit is still the first holder's");
        bulkhead.release();
        assertTrue(bulkhead.acquire(Duration.ZERO), "and it came back when that holder gave it");
    }

    @Test
    @Timeout(30)
    void underContentionWithTimeoutsTheLimitHoldsAndNoPermitIsLost() throws Exception {
        Bulkhead bulkhead = new Bulkhead(3);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 2_000; i++) {
                    if (bulkhead.acquire(Duration.ofNanos(i % 3 == 0 ? 0 : 50_000))) { // many give up in the race
                        most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                        holding.decrementAndGet();
                        bulkhead.release();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(25, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
        assertTrue(most.get() <= 3, "held at once: " + most.get());
        for (int i = 0; i < 3; i++) {
            assertTrue(bulkhead.acquire(Duration.ZERO), "permit " + (i + 1) + " of 3 was lost");
        }
        assertFalse(bulkhead.acquire(Duration.ZERO));
        assertEquals(0, bulkhead.waiting());
    }
}
