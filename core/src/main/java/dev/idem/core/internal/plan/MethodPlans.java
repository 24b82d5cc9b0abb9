package dev.idem.core.internal.plan;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.function.Function;

/**
 * Plans by method, on the path of every call.
 *
 * <h2>Lookup</h2>
 * Plans are kept per declaring class in a {@link ClassValue}: one lookup that the JVM keeps fast, then a scan of
 * that class's few planned methods, by identity first (front-ends hand the engine the same {@link Method} instance
 * at every call of a join point: AspectJ caches it in the signature, the agent in its dispatcher) and by equality
 * for equal-but-distinct instances. A class's list is copied on insert: plans are added a few times in a class's
 * life and read at every call.
 *
 * <p>In front of that sits a small table indexed by the method instance's identity hash, whose slot remembers the
 * last method found there: for the same instance at every call it answers with an identity hash, one load and one
 * comparison, without the class lookup and the scan. A slot is written only when it missed, so hot methods that
 * do not share a slot cost no write (and no cache line bouncing between cores); two that do share one take turns
 * and fall back to the lookup above, which is always correct.
 *
 * <h2>Class loaders</h2>
 * Nothing here holds a class strongly from the engine's side. A {@code ClassValue}'s value lives with the class
 * it was computed for, so when an application's class loader is discarded (a reload, a redeploy, a dev-tools
 * restart) while the engine lives on in a parent loader, the plans of its classes go with it. The table's slots
 * refer to the class's own {@link Planned} pairs only weakly, so they keep nothing alive either.
 */
public final class MethodPlans {
    private static final int SLOTS = 128; // a power of two

    /** A planned method and its plan, held strongly by its class's {@link ClassPlans} only. */
    private static final class Planned {
        final Method method;
        final OperationPlan plan;
        /** What a slot of the table holds: made once, so filling a slot again allocates nothing. */
        final WeakReference<Planned> weakly;

        Planned(Method method, OperationPlan plan) {
            this.method = method;
            this.plan = plan;
            this.weakly = new WeakReference<>(this);
        }
    }

    /** One class's plans, replaced whole on insert. */
    private static final class ClassPlans {
        volatile Planned[] planned = new Planned[0];

        Planned find(Method method) {
            Planned[] all = planned;
            for (Planned p : all) {
                if (p.method == method) {
                    return p;
                }
            }
            for (Planned p : all) {
                if (p.method.equals(method)) {
                    return p;
                }
            }
            return null;
        }

        synchronized Planned add(Method method, Function<Method, OperationPlan> planner) {
            Planned known = find(method);
            if (known != null) {
                return known;
            }
            Planned p = new Planned(method, planner.apply(method)); // a planner that throws caches nothing
            Planned[] grown = java.util.Arrays.copyOf(planned, planned.length + 1);
            grown[grown.length - 1] = p;
            planned = grown;
            return p;
        }
    }

    private final ClassValue<ClassPlans> byClass = new ClassValue<>() {
        @Override
        protected ClassPlans computeValue(Class<?> type) {
            return new ClassPlans();
        }
    };

    /**
     * The last method found per slot. Plain reads and writes: a reader sees null, a stale slot or a current one
     * (or a reference whose referent it does not see yet, which reads as null), and checks the method it finds.
     */
    @SuppressWarnings("unchecked")
    private final WeakReference<Planned>[] recent = new WeakReference[SLOTS];

    /** The plan of {@code method}, made by {@code planner} on first use (and never cached when it throws). */
    public OperationPlan get(Method method, Function<Method, OperationPlan> planner) {
        // Kept this small so that the JIT inlines it into the caller; the lookup is a method of its own.
        WeakReference<Planned> seen = recent[System.identityHashCode(method) & (SLOTS - 1)];
        Planned p = seen == null ? null : seen.get();
        return p != null && p.method == method ? p.plan : lookUp(method, planner);
    }

    private OperationPlan lookUp(Method method, Function<Method, OperationPlan> planner) {
        int slot = System.identityHashCode(method) & (SLOTS - 1);
        ClassPlans plans = byClass.get(method.getDeclaringClass());
        Planned p = plans.find(method);
        if (p == null) {
            p = plans.add(method, planner);
        }
        if (p.method == method) {
            // Only the very instance can hit the slot later: one merely equal to it (a caller that looks the method
            // up at every call) would rewrite it at every call for nothing.
            recent[slot] = p.weakly;
        }
        return p.plan;
    }
}
