package dev.idem.core.internal;

import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Plans by method, on the path of every call. Front-ends hand the engine the same {@link Method} instance at every
 * call of a join point (AspectJ caches it in the signature, the agent in its dispatcher), so the first look is an
 * identity probe into a small open-addressing table read without locks; equal-but-distinct instances fall back to
 * a {@link ConcurrentHashMap} keyed by equality. The table is copied on insert (plans are added a few hundred times
 * in an application's life, read billions) and stops growing at a bound, beyond which the map serves alone.
 */
public final class MethodPlans {
    private static final int MAX_IDENTITY_ENTRIES = 4096;

    private final ConcurrentHashMap<Method, OperationPlan> byEquality = new ConcurrentHashMap<>();
    private volatile Object[] table = new Object[2 * 64]; // method, plan, method, plan, ...
    private int size;

    /** The plan of {@code method}, made by {@code planner} on first use (and never cached when it throws). */
    public OperationPlan get(Method method, Function<Method, OperationPlan> planner) {
        Object[] t = table;
        int slots = t.length >> 1;
        for (int i = System.identityHashCode(method) & (slots - 1); ; i = (i + 1) & (slots - 1)) {
            Object key = t[2 * i];
            if (key == method) {
                return (OperationPlan) t[2 * i + 1];
            }
            if (key == null) {
                break;
            }
        }
        OperationPlan plan = byEquality.computeIfAbsent(method, planner);
        remember(method, plan);
        return plan;
    }

    private synchronized void remember(Method method, OperationPlan plan) {
        if (size >= MAX_IDENTITY_ENTRIES) {
            return;
        }
        Object[] old = table;
        int slots = old.length >> 1;
        Object[] copy = new Object[(size + 1) * 2 > slots ? old.length * 2 : old.length];
        int copySlots = copy.length >> 1;
        for (int i = 0; i < slots; i++) {
            if (old[2 * i] != null) {
                insert(copy, copySlots, old[2 * i], old[2 * i + 1]);
            }
        }
        if (insert(copy, copySlots, method, plan)) {
            size++;
        }
        table = copy;
    }

    private static boolean insert(Object[] t, int slots, Object method, Object plan) {
        for (int i = System.identityHashCode(method) & (slots - 1); ; i = (i + 1) & (slots - 1)) {
            if (t[2 * i] == method) {
                return false;
            }
            if (t[2 * i] == null) {
                t[2 * i] = method;
                t[2 * i + 1] = plan;
                return true;
            }
        }
    }
}
