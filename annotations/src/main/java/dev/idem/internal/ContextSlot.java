package dev.idem.internal;

import dev.idem.IdempotencyContext;

/**
 * The thread-local slot behind {@link IdempotencyContext#current()}. Not API: only the engine writes it. It lives
 * here rather than in the engine so that the annotations jar stays free of dependencies.
 */
public final class ContextSlot {
    private static final ThreadLocal<IdempotencyContext> CURRENT = new ThreadLocal<>();

    private ContextSlot() {
    }

    public static IdempotencyContext get() {
        return CURRENT.get();
    }

    /** Binds {@code context} and returns what was bound before, to be restored with {@link #restore}. */
    public static IdempotencyContext bind(IdempotencyContext context) {
        IdempotencyContext previous = CURRENT.get();
        CURRENT.set(context);
        return previous;
    }

    public static void restore(IdempotencyContext previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
