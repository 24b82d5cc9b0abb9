package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.key.CanonicalEncoder;
import dev.idem.core.internal.plan.MethodPlans;
import dev.idem.core.internal.plan.OperationPlan;
import jakarta.annotation.Nonnull;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.function.Function;

/**
 * The engine behind every front-end (the AspectJ aspect, the agent, the programmatic API): one behaviour, however
 * a method is attached. SEMANTICS.md is its contract.
 *
 * <p>Per method, everything that does not depend on the arguments (parsed attributes, key plan, codec, store) is
 * computed at the first call and cached; a configuration error is thrown at every call until it is fixed, never
 * answered by running the method unprotected. Thread-safe; one engine per process is the rule
 * ({@link Idem#engine()}), more are for tests.
 */
public final class IdemEngine implements AutoCloseable {
    /**
     * What {@link #replayKept} returns when this engine keeps no result to answer the call with (a distinct
     * object, never a method's result).
     */
    public static final Object NOT_KEPT = new Object() {
        @Override
        public String toString() {
            return "IdemEngine.NOT_KEPT";
        }
    };

    private final IdemSettings settings;
    private final EngineCore core;
    private final MethodPlans plans = new MethodPlans();
    /** {@code core::plan}, made once: a bound method reference written at the call site is a new object per call. */
    private final Function<Method, OperationPlan> planner;

    private IdemEngine(IdemSettings settings) {
        this.settings = settings;
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        this.core = new EngineCore(settings, settings.heartbeatScheduler(),
                loader != null ? loader : IdemEngine.class.getClassLoader(), settings.retryRandom(),
                settings.retryTimer());
        this.planner = core::plan;
    }

    /**
     * Creates an engine. Close it when done: it owns a heartbeat thread and its stores.
     *
     * @param settings the engine-wide settings
     * @return a new engine with {@code settings}
     */
    public static IdemEngine create(@Nonnull IdemSettings settings) {
        return new IdemEngine(settings);
    }

    /** {@return the settings this engine was created with} */
    public IdemSettings settings() {
        return settings;
    }

    /**
     * Runs the {@code @Idempotent} method {@code method} for a call with {@code args}; {@code body} runs the
     * original code. This is what woven advice calls.
     *
     * @param method the annotated method being called
     * @param args   the call's arguments
     * @param body   runs the method's original code
     * @return the method's result, or the stored result of an earlier identical call
     * @throws Throwable what the method throws, unchanged, or an {@code IdempotencyException}
     */
    public Object invoke(@Nonnull Method method, @Nonnull Object[] args, @Nonnull Invocation body) throws Throwable {
        return core.run(plans.get(method, planner), args, body);
    }

    /**
     * The result of a call of {@code method} with {@code args} that this engine keeps (a completed call's result,
     * still within its {@code ttl} and {@code window} on the clock read now, stored by the same payload), announced
     * as a replay; or {@link #NOT_KEPT} when anything else applies, including every error. It never runs the
     * method and never throws: on {@code NOT_KEPT} the caller calls {@link #invoke}, which decides the call as it
     * always does (and reports a conflict, a configuration or key error, a store's answer). What front-ends call
     * before building what {@code invoke} needs (an {@link Invocation}, a closure), so a replay builds neither.
     *
     * <p>A call that is not kept leaves the key derived here in the thread's encoder, and an {@code invoke} of
     * the same method with the same arguments that follows at once on this thread takes it instead of deriving it
     * again (keys that depend on the time, and key encodings over 1 KB, are derived by {@code invoke} alone).
     *
     * @param method the annotated method being called
     * @param args   the call's arguments
     * @return the kept result (a completed future of it for a method returning one), or {@link #NOT_KEPT}
     */
    public Object replayKept(@Nonnull Method method, @Nonnull Object[] args) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            // The thread's encoder remembers the plan of the method it replayed last: a run of calls of one
            // method (the hot path) skips finding it by class and method.
            OperationPlan plan = (OperationPlan) encoder.memo(plans, method);
            if (plan == null) {
                try {
                    plan = plans.get(method, planner);
                } catch (RuntimeException e) {
                    return NOT_KEPT; // invoke plans again and reports the configuration error
                }
                encoder.memo(plans, method, plan);
            }
            return core.replayKept(plan, encoder, args, NOT_KEPT);
        } finally {
            encoder.release();
        }
    }

    /**
     * {@code method}'s plan in this engine, resolved now, for a front-end that keeps it per method: calls through
     * the handle skip finding the plan by method. The handle is bound to this engine: a front-end calling through
     * {@link Idem#engine()} must compare {@link Planned#engine()} with it and plan again when the engine was
     * replaced ({@link Idem#install}).
     *
     * @param method an {@code @Idempotent} method
     * @return its plan in this engine
     * @throws IdempotencyConfigurationException naming the method and what to change (nothing is cached then)
     */
    public Planned planned(@Nonnull Method method) {
        return new Planned(this, plans.get(method, planner));
    }

    /**
     * An {@code @Idempotent} method planned in one engine: {@link IdemEngine#invoke} and
     * {@link IdemEngine#replayKept} without finding the plan. Immutable and thread-safe; it holds the engine.
     */
    public static final class Planned {
        private final IdemEngine engine;
        private final OperationPlan plan;

        private Planned(IdemEngine engine, OperationPlan plan) {
            this.engine = engine;
            this.plan = plan;
        }

        /** {@return the engine this plan belongs to} */
        public IdemEngine engine() {
            return engine;
        }

        /**
         * {@link IdemEngine#replayKept} for this method.
         *
         * @param args the call's arguments
         * @return the kept result, or {@link #NOT_KEPT}
         */
        public Object replayKept(@Nonnull Object[] args) {
            return engine.core.replayKept(plan, args, NOT_KEPT);
        }

        /**
         * {@link IdemEngine#invoke} for this method.
         *
         * @param args the call's arguments
         * @param body runs the method's original code
         * @return the method's result, or the stored result of an earlier identical call
         * @throws Throwable what the method throws, unchanged, or an {@code IdempotencyException}
         */
        public Object invoke(@Nonnull Object[] args, @Nonnull Invocation body) throws Throwable {
            return engine.core.run(plan, args, body);
        }
    }

    /**
     * Checks {@code method}'s annotation, key parameters, return type and store now, as its first call would.
     *
     * @param method an {@code @Idempotent} method
     * @throws IdempotencyConfigurationException naming the method and what to change
     */
    public void validate(@Nonnull Method method) {
        plans.get(method, planner);
    }

    /**
     * Checks {@code method}'s annotation, key parameters, return type and result codec as {@link #validate} does,
     * but neither creates nor reaches its store: what a build or a class being loaded can check before any call.
     * Nothing is cached for calls; the first call still plans the method, with its store.
     *
     * @param method an {@code @Idempotent} method
     * @throws IdempotencyConfigurationException naming the method and what to change
     */
    public void check(@Nonnull Method method) {
        core.check(method);
    }

    /**
     * An idempotent operation for code that cannot use annotations. Build it once and keep it: the policy is
     * validated and planned here.
     *
     * @param <T>        the result type
     * @param policy     what the operation promises; it needs a scope
     * @param resultType the result type (a Class, or a generic Type for {@code List<Article>}), which bounds what
     *                   stored results may decode into
     * @return the operation, to call as often as needed
     */
    public <T> IdempotentOperation<T> operation(@Nonnull IdempotencyPolicy policy, @Nonnull Type resultType) {
        return new IdempotentOperation<>(core, core.plan(policy, resultType));
    }

    /**
     * Creates the default store now rather than at the first call, so a launcher can refuse to start with a store
     * that does not exist or is misconfigured. A store whose server is unreachable is not refused: it is an outage,
     * during which calls fail closed at once (or run unprotected under {@code onStoreError = FAIL_OPEN}) while the
     * store is created again in the background.
     *
     * @throws IdempotencyConfigurationException naming {@code idem.store} and the stores that are known, or naming
     *                                           the store's setting at fault
     * @throws dev.idem.IdempotencyStoreException when the store's server answered but cannot serve (a missing table)
     */
    public void requireDefaultStore() {
        core.requireDefaultStore();
    }

    /** {@return the number of executions registered as running in this JVM right now; zero when nothing runs} */
    public int inFlightCount() {
        return core.inFlightCount();
    }

    /** How many executions of {@code scope} wait for a permit of its {@code maxConcurrent} limit (for tests). */
    int queuedFor(String scope) {
        return core.queuedFor(scope);
    }

    @Override
    public void close() {
        core.close();
    }
}
