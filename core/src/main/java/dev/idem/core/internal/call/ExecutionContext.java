package dev.idem.core.internal.call;

import dev.idem.IdempotencyContext;
import dev.idem.core.internal.key.CallKey;
import dev.idem.internal.ContextSlot;
import jakarta.annotation.Nullable;

/**
 * What {@link IdempotencyContext#current()} returns inside a running execution. Contexts of executions nested on
 * one thread form a chain, so a call can tell that its key is already being executed by a caller further up.
 *
 * @param call      the call's identity in its engine
 * @param enclosing the execution this one runs inside of on this thread, if any
 */
record ExecutionContext(String key, long fencingToken, CallKey call, @Nullable ExecutionContext enclosing)
        implements IdempotencyContext {

    /** Whether {@code candidate} is this execution's call or that of one enclosing it. */
    boolean isRunning(CallKey candidate) {
        for (ExecutionContext c = this; c != null; c = c.enclosing) {
            if (c.call.sameCallAs(candidate)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Binds the context of an execution starting on this thread, inside whatever execution runs there already.
     *
     * @return what was bound before, for {@link #leave}
     */
    static IdempotencyContext enter(String key, long fencingToken, CallKey call) {
        IdempotencyContext current = ContextSlot.get();
        return ContextSlot.bind(new ExecutionContext(key, fencingToken, call,
                current instanceof ExecutionContext ? (ExecutionContext) current : null));
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
}
