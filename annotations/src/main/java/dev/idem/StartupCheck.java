package dev.idem;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The start-up check an application runs before its first call, in whichever way Idem is attached: it stops the
 * application when an {@code @Idempotent} method would run without protection, naming each one.
 *
 * <p>It lives in the annotations jar, which every mode puts on the application's class path, because under the
 * Idem agent the engine's classes come from the agent jar alone: an application started without the agent has no
 * engine, and a check in the engine could not even load. When the engine is there (the agent's, or idem-core
 * beside the aspect), this hands the classes to its {@code dev.idem.core.WeavingCheck.requireWoven}, which tells
 * woven from unwoven methods and reports misplaced annotations. When it is not, no method can be protected, so
 * every {@code @Idempotent} method of the classes is reported, with how to attach the agent.
 */
public final class StartupCheck {
    private static final String ENGINE_CHECK = "dev.idem.core.WeavingCheck";

    private StartupCheck() {
    }

    /**
     * Throws when any {@code @Idempotent} method of {@code classes} would run without protection: not woven, not
     * instrumented by the agent, or annotated where nothing can weave it (an abstract method).
     *
     * <p>The engine is looked up through the class loader of the first class, so it is the one that class's calls
     * would reach.
     *
     * @param classes the classes to inspect, such as the application's services
     * @throws IdempotencyConfigurationException listing each such method and how to fix it
     */
    public static void requireWoven(Class<?>... classes) {
        Class<?> engineCheck = engineCheck(classes.length > 0 ? classes[0].getClassLoader()
                : StartupCheck.class.getClassLoader());
        if (engineCheck != null) {
            delegate(engineCheck, classes);
            return;
        }
        List<String> unprotected = new ArrayList<>();
        for (Class<?> c : classes) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Idempotent.class)) {
                    unprotected.add(describe(m));
                }
            }
        }
        if (!unprotected.isEmpty()) {
            throw new IdempotencyConfigurationException(unprotected.size() + " @Idempotent method(s) would run"
                    + " without protection, because Idem's engine is not on the class path: "
                    + String.join(", ", unprotected) + ". Start the JVM with the Idem agent"
                    + " (java -javaagent:idem-agent.jar ...), which brings the engine; or weave at compile or load"
                    + " time with dev.idem:idem-aspect, which brings dev.idem:idem-core.");
        }
    }

    /** The engine's check as {@code loader} sees it, or null when the engine is not there. */
    private static Class<?> engineCheck(ClassLoader loader) {
        try {
            return Class.forName(ENGINE_CHECK, true, loader != null ? loader : ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static void delegate(Class<?> engineCheck, Class<?>[] classes) {
        try {
            engineCheck.getMethod("requireWoven", Class[].class).invoke(null, (Object) classes);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new IllegalStateException(ENGINE_CHECK + ".requireWoven failed", cause);
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalStateException(ENGINE_CHECK + " has no public requireWoven(Class...): the engine on the"
                    + " class path is not of this version of idem-annotations", e);
        }
    }

    /** As every Idem message names a method: {@code com.acme.OrderService#create(String, Cart)}. */
    private static String describe(Method m) {
        return m.getDeclaringClass().getName() + "#" + m.getName() + Arrays.stream(m.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
