package dev.idem.core.internal.call;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.internal.key.CallKey;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;

/**
 * Executions running in this JVM, keyed by call, so concurrent identical calls share one execution
 * (coalescing). Registration is atomic: of many callers of one key exactly one becomes the leader and runs the
 * method; the others join it.
 *
 * <p>The leader removes its entry once the outcome is published, whether the method returned or threw, and
 * whatever happened while its result was saved: a finished execution never leaves an entry behind for later
 * callers to join. The map is a Caffeine cache with no bound and no expiry, used through its map view: entries live
 * exactly as long as their execution, and the leader, not a cache policy, decides when that ends (a policy that
 * evicted a running execution would let a duplicate run beside it).
 */
final class InFlightCalls {

    /**
     * A running execution; the payload digest lets a joiner with other arguments be told it conflicts. It always
     * completes normally, with itself as its {@link Outcome}: a failure travels inside it, so waiting for it never
     * throws the leader's exception at a joiner by accident. Being its own outcome, a finished execution costs no
     * object beyond itself.
     */
    static final class Execution extends Outcome {
        final byte[] payloadDigest;

        Execution(byte[] payloadDigest) {
            this.payloadDigest = payloadDigest;
        }

        void succeed(Object value) {
            this.value = value;
            complete(this);
        }

        /**
         * @param personal the failure belongs to the leader (an Error, an interrupt): joiners run the call again
         *                 instead of receiving it
         */
        void fail(Throwable failure, boolean personal) {
            this.failure = failure;
            this.personal = personal;
            complete(this);
        }
    }

    /**
     * What an execution produced: its value, or the exception it threw. Written once, before the future completes,
     * and read only after it completed, so the future's completion publishes it.
     */
    abstract static class Outcome extends CompletableFuture<Outcome> {
        Object value;
        Throwable failure;
        boolean personal;
    }

    /**
     * Presized far beyond the executions a JVM runs at once, so that callers that run at once write keys spread over
     * cache lines of their own rather than the few lines of a small table.
     */
    private final ConcurrentMap<CallKey, Execution> running = Caffeine.newBuilder()
            .initialCapacity(1024)
            .<CallKey, Execution>build()
            .asMap();

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
