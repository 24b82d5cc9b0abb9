package dev.idem.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Executions running in this JVM, keyed by call, so concurrent identical calls share one execution
 * (coalescing). Registration is atomic: of many callers of one key exactly one becomes the leader and runs the
 * method; the others join it.
 *
 * <p>The leader removes its entry once the outcome is published, whether the method returned or threw, and
 * whatever happened while its result was saved: a finished execution never leaves an entry behind for later
 * callers to join. A plain concurrent map is enough: entries live exactly as long as their execution, and the
 * leader, not a cache, decides when that ends.
 */
final class InFlightCalls {

    /**
     * A running execution; the payload digest lets a joiner with other arguments be told it conflicts. It always
     * completes normally, with an {@link Outcome}: a failure travels inside it, so waiting for it never throws the
     * leader's exception at a joiner by accident.
     */
    static final class Execution extends CompletableFuture<Outcome> {
        final byte[] payloadDigest;

        Execution(byte[] payloadDigest) {
            this.payloadDigest = payloadDigest;
        }

        void succeed(Object value) {
            complete(new Outcome(value, null, false));
        }

        /**
         * @param personal the failure belongs to the leader (an Error, an interrupt): joiners run the call again
         *                 instead of receiving it
         */
        void fail(Throwable failure, boolean personal) {
            complete(new Outcome(null, failure, personal));
        }
    }

    /** What an execution produced: its value, or the exception it threw. */
    static final class Outcome {
        final Object value;
        final Throwable failure;
        final boolean personal;

        Outcome(Object value, Throwable failure, boolean personal) {
            this.value = value;
            this.failure = failure;
            this.personal = personal;
        }
    }

    private final ConcurrentMap<CallKey, Execution> running = new ConcurrentHashMap<>();

    /** Registers {@code candidate} as the execution of {@code key}; returns the one already running, or null. */
    Execution register(CallKey key, Execution candidate) {
        return running.putIfAbsent(key, candidate);
    }

    /** Removes {@code execution} if it is still the registered one. */
    void finish(CallKey key, Execution execution) {
        running.remove(key, execution);
    }

    int size() {
        return running.size();
    }
}
