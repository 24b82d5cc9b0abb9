package dev.idem.core.internal.call;

import dev.idem.IdempotencyContext;
import dev.idem.core.internal.key.CallKey;
import dev.idem.internal.ContextSlot;
import dev.idem.store.IdempotencyStore;
import jakarta.annotation.Nullable;

import java.time.Duration;

/**
 * What {@link IdempotencyContext#current()} returns inside a running execution. Contexts of executions nested on
 * one thread form a chain, so a call can tell that its key is already being executed by a caller further up.
 *
 * <p>The context of an execution under a lease is also its {@linkplain LeaseHeartbeat lease heartbeat}'s beat (it
 * has the key and token a renewal needs), so an execution allocates one object for both; a context that was never
 * {@linkplain LeaseHeartbeat#start(LeaseHeartbeat.RunningBeat) started} (a transactional execution's) never beats.
 */
final class ExecutionContext extends LeaseHeartbeat.RunningBeat implements IdempotencyContext {
    private final CallKey call;
    @Nullable
    private final ExecutionContext enclosing;

    /**
     * @param store     the store whose lease the beat renews, or null for a context that never beats
     * @param operation the operation, for a lost lease's report
     * @param lease     the lease a renewal asks for, or null for a context that never beats
     * @param call      the call's identity in its engine
     * @param enclosing the execution this one runs inside of on this thread, if any
     */
    ExecutionContext(@Nullable IdempotencyStore store, @Nullable String operation, String key, long fencingToken,
                     @Nullable Duration lease, CallKey call, @Nullable ExecutionContext enclosing) {
        super(store, operation, key, fencingToken, lease);
        this.call = call;
        this.enclosing = enclosing;
    }

    /** Whether {@code candidate} is this execution's call or that of one enclosing it. */
    boolean isRunning(CallKey candidate) {
        for (ExecutionContext c = this; c != null; c = c.enclosing) {
            if (c.call.sameCallAs(candidate)) {
                return true;
            }
        }
        return false;
    }

    /** {@return the execution running further up this thread, if any} */
    static ExecutionContext enclosingHere() {
        IdempotencyContext current = ContextSlot.get();
        return current instanceof ExecutionContext ? (ExecutionContext) current : null;
    }

    /**
     * Binds the context of an execution starting on this thread, inside whatever execution runs there already. The
     * context never beats: for executions whose claim needs no heartbeat.
     *
     * @return what was bound before, for {@link #leave}
     */
    static IdempotencyContext enter(String key, long fencingToken, CallKey call) {
        return ContextSlot.bind(new ExecutionContext(null, null, key, fencingToken, null, call, enclosingHere()));
    }

    /**
     * Binds back what {@link #enter} returned. Where nothing was, the thread keeps its (weakly keyed) slot holding
     * null rather than removing it: removing it would make the next execution on this thread allocate the slot's map
     * entry again, on the path of every first call.
     */
    static void leave(@Nullable IdempotencyContext previous) {
        if (previous == null) {
            ContextSlot.bind(null);
        } else {
            ContextSlot.restore(previous);
        }
    }

    @Override
    public String toString() {
        return "ExecutionContext[key=" + key() + ", fencingToken=" + fencingToken() + "]";
    }
}
