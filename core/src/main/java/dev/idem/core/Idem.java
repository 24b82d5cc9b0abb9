package dev.idem.core;

import dev.idem.core.internal.plan.MethodPlans;
import jakarta.annotation.Nonnull;
import jakarta.annotation.Nullable;

import java.lang.reflect.Method;
import java.util.function.Function;

/**
 * The process's engine, which woven methods use. It is created on first use from {@link IdemSettings#fromEnvironment()}
 * (system properties, {@code idem.properties}, defaults), or installed once at start-up by an application that
 * configures Idem in code.
 */
public final class Idem {
    private static volatile IdemEngine engine;
    /** One handle per method, held with its class (a discarded class loader takes its handles along). */
    private static final MethodPlans<IdempotentMethod> HANDLES = new MethodPlans<>();
    private static final Function<Method, IdempotentMethod> FOLLOWER = ProcessEngineMethod::new;

    private Idem() {
    }

    /** {@return the process's engine, created from the environment on first use} */
    public static IdemEngine engine() {
        IdemEngine e = engine;
        if (e == null) {
            synchronized (Idem.class) {
                e = engine;
                if (e == null) {
                    e = IdemEngine.create(IdemSettings.fromEnvironment());
                    engine = e;
                }
            }
        }
        return e;
    }

    /**
     * Makes {@code replacement} the process's engine and returns the previous one (null if none was created),
     * which the caller may close. Meant for start-up and for tests; calls already running finish on the engine
     * they started on.
     *
     * @param replacement the engine woven methods use from now on
     * @return the engine it replaces, or null if none had been created
     */
    public static synchronized IdemEngine install(@Nonnull IdemEngine replacement) {
        IdemEngine previous = engine;
        engine = replacement;
        return previous;
    }

    /**
     * Undoes an {@link #install}: puts {@code previous} back as the process's engine, if {@code installed} is still
     * the process's engine (else someone installed another since, and that one stays). With {@code previous} null,
     * the next use creates an engine from the environment again. For a component that lends its engine to the
     * process for a while, such as an application context that closes its engine when it closes.
     *
     * @param installed the engine that was installed
     * @param previous  what {@link #install} answered when {@code installed} was installed
     * @return whether {@code previous} was put back
     */
    public static synchronized boolean uninstall(@Nonnull IdemEngine installed, @Nullable IdemEngine previous) {
        if (engine != installed) {
            return false;
        }
        engine = previous;
        return true;
    }

    /**
     * The front-end contract on the process's engine: {@code method}'s handle, which runs each call on
     * {@link #engine()} as it is when the call starts, so it follows {@link #install}. Asked again for the same
     * method, this answers the same handle: a front-end may keep it (per join point, per method) or ask at every
     * call. Nothing is planned here: the method is planned in an engine at its first call there, and a
     * configuration error is thrown at every call until it is fixed.
     *
     * @param method an {@code @Idempotent} method
     * @return its handle on the process's engine
     */
    public static IdempotentMethod advise(@Nonnull Method method) {
        return HANDLES.get(method, FOLLOWER);
    }
}
