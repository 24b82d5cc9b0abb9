package dev.idem.agent.internal;

import dev.idem.core.ConfigurationCheck;
import dev.idem.core.Idem;
import dev.idem.core.IdempotentMethod;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the agent's inlined advice calls. Public only because instrumented classes must see it; not API.
 *
 * <p>Running the original body: the advice cannot wrap the method's code in a closure without adding members
 * (which retransformation forbids), so the engine's "proceed" re-enters the same method through a method handle
 * with a per-thread marker; the advice sees the marker, clears it, and lets the body run. The handle is bound with
 * {@code findSpecial} semantics, so an override in a subclass does not run a second time.
 */
public final class Dispatcher {
    /** Stands for a null result: the enter advice returns non-null to mean "the body is skipped, here is the result". */
    public static final Object NULL_RESULT = new Object();

    private static final ThreadLocal<Method> PROCEEDING = new ThreadLocal<>();
    private static final ClassValue<Map<String, Target>> TARGETS = new ClassValue<>() {
        @Override
        protected Map<String, Target> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    private Dispatcher() {
    }

    /**
     * Called on entry to an instrumented method.
     *
     * @param nameAndDescriptor the method's name followed by its JVM descriptor
     * @return null to run the body (this is the engine's own "proceed"), or the result, {@link #NULL_RESULT} for null
     */
    public static Object enter(Class<?> type, String nameAndDescriptor, Object self, Object[] args) throws Throwable {
        Target target = target(type, nameAndDescriptor);
        if (PROCEEDING.get() == target.method) {
            PROCEEDING.remove();
            return null;
        }
        Object result = target.handle.call(args, () -> target.proceed(self, args));
        return result == null ? NULL_RESULT : result;
    }

    /**
     * Called when an instrumented class has been initialised (or, attached late, instrumented): reports every
     * {@code @Idempotent} method of it the engine refuses, before any is called. Never throws: a class must not
     * fail to initialise because of a report, and the engine refuses every call of such a method anyway.
     */
    public static void classInitialised(Class<?> type) {
        try {
            for (String problem : ConfigurationCheck.problems(Idem.engine(), type)) {
                Installer.error(problem + " Every call of it is refused until this is fixed.");
            }
        } catch (RuntimeException | LinkageError e) {
            Installer.error("could not check the @Idempotent methods of " + type.getName() + ": " + e);
        }
    }

    /** The value the method returns for what {@link #enter} returned. */
    public static Object result(Object fromEnter) {
        return fromEnter == NULL_RESULT ? null : fromEnter;
    }

    private static Target target(Class<?> type, String nameAndDescriptor) {
        Map<String, Target> byMethod = TARGETS.get(type);
        Target target = byMethod.get(nameAndDescriptor);
        if (target == null) {
            target = byMethod.computeIfAbsent(nameAndDescriptor, key -> Target.resolve(type, key));
        }
        return target;
    }

    /** One instrumented method and a handle that runs its body without virtual dispatch. */
    private static final class Target {
        final Method method;
        final MethodHandle body; // (Object receiverOrNull, Object[] args) -> Object
        /** The front-end contract for this method; it follows the process's engine ({@code Idem.install}). */
        final IdempotentMethod handle;

        private Target(Method method, MethodHandle body) {
            this.method = method;
            this.body = body;
            this.handle = Idem.advise(method);
        }

        static Target resolve(Class<?> type, String nameAndDescriptor) {
            for (Method m : type.getDeclaredMethods()) {
                if (nameAndDescriptor.equals(m.getName() + descriptor(m))) {
                    return new Target(m, handleFor(type, m));
                }
            }
            throw new IllegalStateException("instrumented method " + type.getName() + "#" + nameAndDescriptor
                    + " not found");
        }

        private static MethodHandle handleFor(Class<?> type, Method m) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
                MethodHandle h;
                if (Modifier.isStatic(m.getModifiers())) {
                    h = lookup.unreflect(m);
                    h = MethodHandles.dropArguments(h, 0, Object.class); // no receiver
                } else {
                    h = lookup.unreflectSpecial(m, type);
                }
                h = h.asType(h.type().generic());
                if (m.getReturnType() == void.class) {
                    h = h.asType(h.type().changeReturnType(Object.class));
                }
                return h.asSpreader(Object[].class, m.getParameterCount())
                        .asType(MethodType.methodType(Object.class, Object.class, Object[].class));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("the Idem agent cannot call " + type.getName() + "#" + m.getName()
                        + ": " + e.getMessage(), e);
            }
        }

        Object proceed(Object self, Object[] args) throws Throwable {
            PROCEEDING.set(method);
            try {
                return body.invokeExact(self, args);
            } finally {
                PROCEEDING.remove();
            }
        }

        private static String descriptor(Method m) {
            return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        }
    }
}
