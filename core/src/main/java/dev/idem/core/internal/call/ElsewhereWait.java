package dev.idem.core.internal.call;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.RecordState;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How a caller waits for an execution of its key that runs elsewhere (another process, or another engine over the
 * same store): it claims again until the claim no longer finds that execution in progress, and says how long it
 * waits between claims. A claim rather than a read, so a dead owner's key is taken over once its lease passes.
 *
 * <h2>With a watch</h2>
 * When the store offers {@link IdempotencyStore#watch watches}, the caller opens one, then claims (the execution
 * may have ended between the caller's first claim and the watch), then awaits the watch: a completion, failure,
 * release or deletion after that claim wakes it at once, and it claims again. A watch is only a hint that may be
 * lost (a dropped message, an owner that died and will never finish), so the caller also claims again when no
 * signal came within {@code recheck}, jittered down to half of it so that waiters spread out. Each round opens the
 * next watch before closing the last, so a store that subscribes per key keeps its subscription through the wait,
 * and one whose subscription broke gets a new one. A waiter woken once claims three times in all: the first claim,
 * the claim after opening the watch, and the claim after the signal, however long the execution took.
 *
 * <h2>Without</h2>
 * It polls: claims after 5 ms, then after pauses doubling to 200 ms.
 */
final class ElsewhereWait {
    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final IdempotencyStore store;
    private final ClaimRequest request;
    private final long recheckNanos;

    ElsewhereWait(IdempotencyStore store, ClaimRequest request, long recheckNanos) {
        this.store = store;
        this.request = request;
        this.recheckNanos = recheckNanos;
    }

    /**
     * Claims until the outcome is not the same call's execution in progress, or {@code deadline} passes.
     *
     * @param deadline {@link System#nanoTime()} when the caller stops waiting
     * @return the last claim's outcome: acquired, a finished record, a record of another payload, or the execution
     *         still in progress when the deadline passed
     * @throws InterruptedException when the caller is interrupted while waiting
     * @throws RuntimeException     what the store threw
     */
    ClaimOutcome awaitEnd(long deadline) throws InterruptedException {
        Optional<KeyWatch> first = store.watch(request.key());
        return first.isPresent() ? watching(first.get(), deadline) : polling(deadline);
    }

    private ClaimOutcome watching(KeyWatch first, long deadline) throws InterruptedException {
        KeyWatch watch = first;
        try {
            while (true) {
                ClaimOutcome outcome = claim(deadline); // after the watch opened: a later end signals it
                long remaining = deadline - System.nanoTime();
                if (!runsElsewhere(outcome) || remaining <= 0) {
                    return outcome;
                }
                watch.await(Math.min(remaining, jittered(recheckNanos)), TimeUnit.NANOSECONDS);
                KeyWatch next = store.watch(request.key()).orElse(null);
                watch.close();
                watch = next;
                if (watch == null) { // the store stopped offering watches
                    return polling(deadline);
                }
            }
        } finally {
            if (watch != null) {
                watch.close();
            }
        }
    }

    private ClaimOutcome polling(long deadline) throws InterruptedException {
        long pause = FIRST_POLL_NANOS;
        while (true) {
            TimeUnit.NANOSECONDS.sleep(Math.min(pause, Math.max(0, deadline - System.nanoTime())));
            pause = Math.min(pause * 2, MAX_POLL_NANOS);
            ClaimOutcome outcome = claim(deadline);
            if (!runsElsewhere(outcome) || deadline - System.nanoTime() <= 0) {
                return outcome;
            }
        }
    }

    /** Claims again, waiting on another transaction's hold of the key's row no later than {@code deadline}. */
    private ClaimOutcome claim(long deadline) {
        if (request.lockWait() == null) {
            return store.claim(request);
        }
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        return store.claim(left.compareTo(request.lockWait()) < 0 ? request.withLockWait(left) : request);
    }

    /** Whether {@code outcome} found this very call (same payload) in progress, so there is nothing to do but wait. */
    private boolean runsElsewhere(ClaimOutcome outcome) {
        if (!(outcome instanceof ClaimOutcome.Existing)) {
            return false;
        }
        var record = ((ClaimOutcome.Existing) outcome).record();
        return record.state() == RecordState.IN_PROGRESS && record.payloadHash().equals(request.payloadHash());
    }

    /** Uniform in {@code [nanos / 2, nanos]}. */
    private static long jittered(long nanos) {
        return nanos / 2 + ThreadLocalRandom.current().nextLong(nanos / 2 + 1);
    }
}
