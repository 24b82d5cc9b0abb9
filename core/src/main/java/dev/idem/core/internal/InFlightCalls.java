package dev.idem.core.internal;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;

/**
 * Executions running in this JVM, keyed by call, so concurrent identical calls share one execution
 * (coalescing). Registration is atomic: of many callers of one key exactly one becomes the leader and runs the
 * method; the others join its future.
 *
 * <p>Every joiner receives its own dependent copy of the shared future, so one caller cancelling or timing out
 * completes only its copy and never the shared execution. The leader removes its entry in a {@code finally}
 * once the outcome is published, whether the method returned or threw: a failed execution never leaves an entry
 * behind for later callers to join.
 */
final class InFlightCalls {
    /**
     * A running execution; the payload digest lets a joiner with other arguments be told it conflicts. It always
     * completes normally, with an {@link Outcome}: a failure travels inside it, so Caffeine neither logs it as a
     * failed load nor removes the entry behind the leader's back.
     */
    static final class Execution extends CompletableFuture<Outcome> {
        final byte[] payloadDigest;

        Execution(byte[] payloadDigest) {
            this.payloadDigest = payloadDigest;
        }

        void succeed(Object value) {
            complete(new Outcome(value, null));
        }

        void fail(Throwable failure) {
            complete(new Outcome(null, failure));
        }

        /** A future of its own for one joiner: completing or cancelling it leaves the execution alone. */
        CompletableFuture<Object> joiner() {
            CompletableFuture<Object> own = new CompletableFuture<>();
            whenComplete((outcome, impossible) -> {
                if (outcome.failure != null) {
                    own.completeExceptionally(outcome.failure);
                } else {
                    own.complete(outcome.value);
                }
            });
            return own;
        }
    }

    /** What an execution produced: its value, or the exception it threw. */
    static final class Outcome {
        final Object value;
        final Throwable failure;

        Outcome(Object value, Throwable failure) {
            this.value = value;
            this.failure = failure;
        }
    }

    private final ConcurrentMap<CallKey, CompletableFuture<Outcome>> running;

    InFlightCalls() {
        AsyncCache<CallKey, Outcome> cache = Caffeine.newBuilder().buildAsync();
        this.running = cache.asMap();
    }

    /** Registers {@code candidate} as the execution of {@code key}; returns the one already running, or null. */
    Execution register(CallKey key, Execution candidate) {
        return (Execution) running.putIfAbsent(key, candidate);
    }

    /** Removes {@code execution} if it is still the registered one. */
    void finish(CallKey key, Execution execution) {
        running.remove(key, execution);
    }

    int size() {
        return running.size();
    }
}
