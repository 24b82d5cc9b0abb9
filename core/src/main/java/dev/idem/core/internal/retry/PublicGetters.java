package dev.idem.core.internal.retry;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Calls public instance methods by name on objects of classes Idem does not depend on (the exceptions and headers
 * of HTTP clients), the way the built-in retry classifier and {@code Retry-After} extractor read them.
 *
 * <p>Only methods reachable through a public class or interface of an exported package are called, so nothing is
 * made accessible by force; a method that is absent, inaccessible or throws reads as {@link #ABSENT}. Lookups are
 * cached per class in a {@link ClassValue}, which does not keep a discarded class loader alive.
 */
final class PublicGetters {
    /** What a call returns when there is no such method, or it could not be called. */
    static final Object ABSENT = new Object();

    private static final ClassValue<Map<String, Optional<Method>>> METHODS = new ClassValue<>() {
        @Override
        protected Map<String, Optional<Method>> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    private PublicGetters() {
    }

    /** The result of the first of {@code names} (no-argument methods) that {@code target} has, or ABSENT. */
    static Object first(Object target, String... names) {
        for (String name : names) {
            Object value = call(target, name, null);
            if (value != ABSENT) {
                return value;
            }
        }
        return ABSENT;
    }

    /**
     * {@code target.name(argument)} for a method taking one String (or Object, as {@code Map.get} does), or without
     * argument when {@code argument} is null; ABSENT when there is none.
     */
    static Object call(Object target, String name, String argument) {
        if (target == null) {
            return ABSENT;
        }
        Optional<Method> method = METHODS.get(target.getClass()).computeIfAbsent(
                argument == null ? name : name + "(String)", k -> Optional.ofNullable(find(target.getClass(), name,
                        argument != null)));
        if (method.isEmpty()) {
            return ABSENT;
        }
        try {
            return argument == null ? method.get().invoke(target) : method.get().invoke(target, argument);
        } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
            return ABSENT;
        }
    }

    private static Method find(Class<?> type, String name, boolean oneArgument) {
        Deque<Class<?>> pending = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        pending.add(type);
        while (!pending.isEmpty()) {
            Class<?> c = pending.poll();
            if (!seen.add(c)) {
                continue;
            }
            Method m = oneArgument ? publicMethod(c, name, String.class) : publicMethod(c, name);
            if (m == null && oneArgument) {
                m = publicMethod(c, name, Object.class);
            }
            if (m != null) {
                return m;
            }
            if (c.getSuperclass() != null) {
                pending.add(c.getSuperclass());
            }
            pending.addAll(java.util.Arrays.asList(c.getInterfaces()));
        }
        return null;
    }

    private static Method publicMethod(Class<?> c, String name, Class<?>... parameters) {
        if (!Modifier.isPublic(c.getModifiers()) || !c.getModule().isExported(c.getPackageName())) {
            return null;
        }
        try {
            Method m = c.getMethod(name, parameters);
            return Modifier.isStatic(m.getModifiers()) || m.getReturnType() == void.class
                    || !Modifier.isPublic(m.getDeclaringClass().getModifiers()) ? null : m;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
