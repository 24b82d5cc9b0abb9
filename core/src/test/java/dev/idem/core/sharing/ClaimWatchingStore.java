package dev.idem.core.sharing;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.RecordState;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store that counts, per key, the claims it answered with a record still in progress: how a test observes
 * that a caller waits for another execution (it asked again, and its call is still blocked) instead of assuming it
 * from timing. Used by core's tests and by the weaving scenarios.
 *
 * <p>It offers no {@link #watch}, so a waiting caller polls by claiming again and each of its waits shows as a claim.
 * It does not close the store it wraps, which belongs to the test.
 */
public final class ClaimWatchingStore extends ForwardingIdempotencyStore {
    private final Duration patience;
    private final Map<String, AtomicInteger> inProgress = new ConcurrentHashMap<>();

    /**
     * @param store    the real store
     * @param patience how long {@link #awaitInProgressAnswers} waits before it fails
     */
    public ClaimWatchingStore(IdempotencyStore store, Duration patience) {
        super(store);
        this.patience = patience;
    }

    /**
     * How many claims of {@code key} were answered with a record in progress so far.
     *
     * @param key the full idempotency key
     * @return the count
     */
    public int inProgressAnswers(String key) {
        AtomicInteger n = inProgress.get(key);
        return n == null ? 0 : n.get();
    }

    /**
     * Waits until {@code key} was answered "in progress" {@code times} times.
     *
     * @param key   the full idempotency key
     * @param times how many such answers to wait for
     * @throws AssertionError       when they did not come within the patience given to the constructor
     * @throws InterruptedException when interrupted while waiting
     */
    public void awaitInProgressAnswers(String key, int times) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        synchronized (this) {
            while (inProgressAnswers(key) < times) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("the caller asked about " + key + " only " + inProgressAnswers(key)
                            + " times in " + patience.toSeconds() + " s, expected " + times);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ClaimOutcome outcome = super.claim(request);
        if (outcome instanceof ClaimOutcome.Existing existing && existing.record().state() == RecordState.IN_PROGRESS) {
            inProgress.computeIfAbsent(request.key(), k -> new AtomicInteger()).incrementAndGet();
            synchronized (this) {
                notifyAll();
            }
        }
        return outcome;
    }

    /** None: a waiting caller claims again, and each of those claims is what the tests count. */
    @Override
    public Optional<KeyWatch> watch(String key) {
        return Optional.empty();
    }

    @Override
    public void close() {
        // the store belongs to the test, which closes it
    }
}
