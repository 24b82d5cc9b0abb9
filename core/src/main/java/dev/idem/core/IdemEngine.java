package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.plan.MethodPlans;
import jakarta.annotation.Nonnull;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.function.Function;

/**
 * The engine behind every front-end (the AspectJ aspect, the agent, the programmatic API): one behaviour, however
 * a method is attached. SEMANTICS.md is its contract.
 *
 * <p>Front-ends reach it through one contract: {@link #advise(Method)} (or {@link Idem#advise(Method)} for the
 * process's engine) returns an {@link IdempotentMethod}, planned once per method, whose
 * {@link IdempotentMethod#call} decides every call. Per method, everything that does not depend on the arguments
 * (parsed attributes, key plan, codec, store) is computed once, when it is first advised; a configuration error is
 * thrown at every call until it is fixed, never answered by running the method unprotected. Thread-safe; one engine per process is the rule
 * ({@link Idem#engine()}), more are for tests.
 */
public final class IdemEngine implements AutoCloseable {
    private final IdemSettings settings;
    private final EngineCore core;
    private final MethodPlans<IdempotentMethod> plans = new MethodPlans<>();
    /** Plans a method into its handle; made once, as a bound method reference is a new object per use. */
    private final Function<Method, IdempotentMethod> advisor;

    private IdemEngine(IdemSettings settings) {
        this.settings = settings;
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        this.core = new EngineCore(settings, settings.heartbeatScheduler(),
                loader != null ? loader : IdemEngine.class.getClassLoader(), settings.retryRandom(),
                settings.retryTimer());
        this.advisor = method -> new PlannedMethod(method, core, core.plan(method));
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
     * The front-end contract: {@code method} as every front-end (woven advice, the agent, an interceptor) calls
     * it, planned and validated now. The handle is immutable and thread-safe; asked again for the same method, this
     * engine answers the same handle. It is bound to this engine: a front-end that calls through the process's
     * engine, which {@link Idem#install} may replace, asks {@link Idem#advise} instead.
     *
     * @param method an {@code @Idempotent} method
     * @return its handle in this engine
     * @throws IdempotencyConfigurationException naming the method and the attribute to change; nothing is kept
     *                                           then, so every later call of {@code advise} plans again and
     *                                           throws again until the method is fixed
     */
    public IdempotentMethod advise(@Nonnull Method method) {
        return plans.get(method, advisor);
    }

    /**
     * {@code advise(method).call(args, body)}: for code that calls a method through the engine now and then (tests,
     * a programmatic caller). Front-ends keep the handle instead.
     *
     * @param method the annotated method being called
     * @param args   the call's arguments
     * @param body   runs the method's original code
     * @return the method's result, or the stored result of an earlier identical call
     * @throws Throwable what the method throws, unchanged, or an {@code IdempotencyException}
     */
    public Object invoke(@Nonnull Method method, @Nonnull Object[] args, @Nonnull Invocation body) throws Throwable {
        return advise(method).call(args, body);
    }

    /**
     * Checks {@code method}'s annotation, key parameters, return type and store now, as its first call would.
     *
     * @param method an {@code @Idempotent} method
     * @throws IdempotencyConfigurationException naming the method and what to change
     */
    public void validate(@Nonnull Method method) {
        advise(method);
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
