package dev.idem.core.internal;

import dev.idem.IdempotencyContext;
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
}
