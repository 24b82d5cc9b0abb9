package dev.idem.core;

import jakarta.annotation.Nonnull;

import java.lang.reflect.Method;

/**
 * An {@code @Idempotent} method as a front-end calls it: the one contract between every front-end (compile-time and
 * load-time weaving, the agent, and any later adapter) and the engine. A front-end gets a handle once per method,
 * keeps it, and hands every execution of the method to {@link #call}, which decides the call entirely: a result
 * this engine keeps, joining an execution running in this JVM, the claim in the store, running the body under a
 * lease, storing its result, replaying, refusing.
 *
 * <p>Handles are immutable and thread-safe. Two kinds exist:
 * <ul>
 *   <li>{@link IdemEngine#advise(Method)}: bound to that engine, planned and validated when it is made (a
 *       configuration error is thrown there, naming the method and the attribute).</li>
 *   <li>{@link Idem#advise(Method)}: follows the process's engine ({@link Idem#engine()}). A call runs on the engine
 *       installed when it starts; after {@link Idem#install} the method is planned in the new engine at its next
 *       call, and calls already running finish on the engine they started on. A configuration error is thrown at
 *       every call until it is fixed; nothing of a failed plan is kept.</li>
 * </ul>
 */
public sealed interface IdempotentMethod permits PlannedMethod, ProcessEngineMethod {

    /** {@return the annotated method this handle calls} */
    Method method();

    /**
     * Runs one execution of the method as its {@code @Idempotent} promises (SEMANTICS.md).
     *
     * @param args the call's arguments, in declaration order; read, never changed or kept beyond the call (except
     *             as a coalesced execution's own arguments while it runs)
     * @param body runs the method's original code; called at most once per attempt, on this thread or (for a
     *             method returning a {@code CompletionStage}, or a retry) another
     * @return the method's result, or the result of an earlier identical call (for a method returning a
     *         {@code CompletionStage}, a future of its own per caller)
     * @throws Throwable what the body throws, unchanged, or an {@code IdempotencyException} saying why the call was
     *                   refused
     */
    Object call(@Nonnull Object[] args, @Nonnull Invocation body) throws Throwable;
}
