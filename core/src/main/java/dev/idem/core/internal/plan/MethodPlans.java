package dev.idem.core.internal.plan;

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
 * <h2>Class loaders</h2>
 * Nothing here holds a class strongly from the engine's side. A {@code ClassValue}'s value lives with the class
 * it was computed for, so when an application's class loader is discarded (a reload, a redeploy, a dev-tools
 * restart) while the engine lives on in a parent loader, the plans of its classes go with it.
 */
public final class MethodPlans {

    /** One class's plans: parallel arrays, replaced whole on insert. */
    private static final class ClassPlans {
        volatile Method[] methods = new Method[0];
        volatile OperationPlan[] plans = new OperationPlan[0];

        OperationPlan find(Method method) {
            Method[] m = methods;
            OperationPlan[] p = plans;
            int n = Math.min(m.length, p.length);
            for (int i = 0; i < n; i++) {
                if (m[i] == method) {
                    return p[i];
                }
            }
            for (int i = 0; i < n; i++) {
                if (m[i].equals(method)) {
                    return p[i];
                }
            }
            return null;
        }

        synchronized OperationPlan add(Method method, Function<Method, OperationPlan> planner) {
            OperationPlan known = find(method);
            if (known != null) {
                return known;
            }
            OperationPlan plan = planner.apply(method); // a planner that throws caches nothing
            int n = methods.length;
            Method[] m = java.util.Arrays.copyOf(methods, n + 1);
            OperationPlan[] p = java.util.Arrays.copyOf(plans, n + 1);
            m[n] = method;
            p[n] = plan;
            plans = p; // plans first: a reader that sees the longer methods array also sees its plan
            methods = m;
            return plan;
        }
    }

    private final ClassValue<ClassPlans> byClass = new ClassValue<>() {
        @Override
        protected ClassPlans computeValue(Class<?> type) {
            return new ClassPlans();
        }
    };

    /** The plan of {@code method}, made by {@code planner} on first use (and never cached when it throws). */
    public OperationPlan get(Method method, Function<Method, OperationPlan> planner) {
        ClassPlans plans = byClass.get(method.getDeclaringClass());
        OperationPlan plan = plans.find(method);
        return plan != null ? plan : plans.add(method, planner);
    }
}
