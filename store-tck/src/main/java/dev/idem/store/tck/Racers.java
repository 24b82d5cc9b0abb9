package dev.idem.store.tck;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs contenders at the same moment: each waits at a barrier until all are ready, so the race is real and not
 * decided by the order of submission. Submission order is shuffled each race, so no contender is systematically
 * first. A contender that does not finish within {@link #RACE_TIMEOUT} fails the race; it never hangs it.
 */
final class Racers implements AutoCloseable {
    static final Duration RACE_TIMEOUT = Duration.ofSeconds(30);

    private final int size;
    private final ExecutorService pool;

    Racers(int size) {
        this.size = size;
        AtomicInteger names = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(size, task -> {
            Thread thread = new Thread(task, "idem-tck-racer-" + names.incrementAndGet());
            thread.setDaemon(true); // a contender stuck in a broken store must not keep the JVM alive
            return thread;
        });
    }

    /** Runs every contender at once and returns what each returned, in the order given. */
    <T> List<T> race(List<? extends Callable<T>> contenders) throws Exception {
        if (contenders.isEmpty() || contenders.size() > size) {
            throw new IllegalArgumentException(contenders.size() + " contenders for " + size + " threads");
        }
        CyclicBarrier start = new CyclicBarrier(contenders.size());
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < contenders.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order);
        List<Future<T>> futures = new ArrayList<>(Collections.nCopies(contenders.size(), null));
        for (int i : order) {
            Callable<T> contender = contenders.get(i);
            futures.set(i, pool.submit(() -> {
                start.await(RACE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                return contender.call();
            }));
        }
        long deadline = System.nanoTime() + RACE_TIMEOUT.toNanos();
        List<T> results = new ArrayList<>(contenders.size());
        for (Future<T> future : futures) {
            try {
                results.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("a contender did not finish within " + RACE_TIMEOUT
                        + ": the store blocks under contention", e);
            } catch (ExecutionException e) {
                throw new AssertionError("a contender failed: " + e.getCause(), e.getCause());
            }
        }
        return results;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
