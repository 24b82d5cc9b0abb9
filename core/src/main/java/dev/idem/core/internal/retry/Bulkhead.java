package dev.idem.core.internal.retry;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A counting limit on the executions of one scope running at once in this JVM, with a first-come first-served
 * queue that both blocking and asynchronous callers wait in.
 *
 * <h2>One queue for both kinds of caller</h2>
 * A waiter is a future that {@link #release()} completes: a blocking caller waits on it with its timeout, an
 * asynchronous one attaches the rest of its work to it. A permit is handed from the releasing execution straight to
 * the first waiter, so a newcomer can never overtake the queue.
 *
 * <h2>A waiter that leaves</h2>
 * A waiter that times out (or is interrupted) completes its own future exceptionally and leaves the queue. It races
 * with a release that has just taken it from the queue: whoever completes the future first wins. When the release
 * wins, the leaving caller holds a permit after all: a blocking caller then keeps it (it was granted in time), and
 * the release never loses a permit, because it hands it to the next waiter when completing one fails.
 */
public final class Bulkhead {
    private final ArrayDeque<CompletableFuture<Void>> waiting = new ArrayDeque<>();
    private int available;

    public Bulkhead(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a bulkhead's limit is at least 1: " + limit);
        }
        this.available = limit;
    }

    /** How many callers are queued for a permit right now (for tests and diagnostics). */
    public synchronized int waiting() {
        return waiting.size();
    }

    /**
     * Takes a permit, waiting at most {@code timeout} in the queue.
     *
     * @return true when a permit was taken (release it), false when the timeout passed first
     * @throws InterruptedException when interrupted while queued; no permit is then held
     */
    public boolean acquire(Duration timeout) throws InterruptedException {
        CompletableFuture<Void> permit = enqueue();
        if (permit == null) {
            return true;
        }
        try {
            permit.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return !leave(permit, e);
        } catch (InterruptedException e) {
            if (!leave(permit, e)) {
                release(); // granted while being interrupted: give it on
            }
            throw e;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a permit is only ever granted", e);
        }
    }

    /**
     * A future completed when a permit is taken (release it then), or failed with {@link TimeoutException} once
     * {@code timeout} has passed in the queue.
     */
    public CompletableFuture<Void> acquireAsync(Duration timeout) {
        CompletableFuture<Void> permit = enqueue();
        if (permit == null) {
            return CompletableFuture.completedFuture(null);
        }
        permit.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).whenComplete((granted, failure) -> {
            if (failure != null) {
                synchronized (this) {
                    waiting.remove(permit);
                }
            }
        });
        return permit;
    }

    /** Gives a permit back: to the first caller still waiting, else to the pool. */
    public void release() {
        while (true) {
            CompletableFuture<Void> next;
            synchronized (this) {
                next = waiting.poll();
                if (next == null) {
                    available++;
                    return;
                }
            }
            // Completed outside the lock: what the waiter runs next must not run under it.
            if (next.complete(null)) {
                return;
            }
            // That waiter had just left (timed out, interrupted): the permit goes to the next one.
        }
    }

    /** Null when a permit was free (it is now taken), else the queued waiter. */
    private synchronized CompletableFuture<Void> enqueue() {
        if (available > 0 && waiting.isEmpty()) {
            available--;
            return null;
        }
        CompletableFuture<Void> waiter = new CompletableFuture<>();
        waiting.add(waiter);
        return waiter;
    }

    /** Leaves the queue; false when a permit had been granted first (the caller then holds it). */
    private boolean leave(CompletableFuture<Void> waiter, Throwable why) {
        if (waiter.completeExceptionally(why)) {
            synchronized (this) {
                waiting.remove(waiter);
            }
            return true;
        }
        return false;
    }
}
