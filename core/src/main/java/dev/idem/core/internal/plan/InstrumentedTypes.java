package dev.idem.core.internal.plan;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Classes a front-end other than AspectJ (the agent) has instrumented, by name, so that
 * {@link dev.idem.core.WeavingCheck} counts them as protected. Not API: the agent writes it.
 */
public final class InstrumentedTypes {
    private static final Set<String> NAMES = ConcurrentHashMap.newKeySet();

    private InstrumentedTypes() {
    }

    public static void add(String className) {
        NAMES.add(className);
    }

    public static boolean contains(Class<?> type) {
        return NAMES.contains(type.getName());
    }
}
