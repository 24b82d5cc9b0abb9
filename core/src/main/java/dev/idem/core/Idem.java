package dev.idem.core;

import jakarta.annotation.Nonnull;

/**
 * The process's engine, which woven methods use. It is created on first use from {@link IdemSettings#fromEnvironment()}
 * (system properties, {@code idem.properties}, defaults), or installed once at start-up by an application that
 * configures Idem in code.
 */
public final class Idem {
    private static volatile IdemEngine engine;

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
}
