package dev.idem.core.internal.plan;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.function.Function;

/**
 * What is planned per method (an engine's handles, the process's handles), found on the path of every call.
 *
 * <h2>Lookup</h2>
 * Values are kept per declaring class in a {@link ClassValue}: one lookup that the JVM keeps fast, then a scan of
 * that class's few planned methods, by identity first (front-ends hand the engine the same {@link Method} instance
 * at every call of a join point: AspectJ caches it in the signature, the agent in its dispatcher) and by equality
 * for equal-but-distinct instances. A class's list is copied on insert: values are added a few times in a class's
 * life and read at every call.
 *
 * <h2>Class loaders</h2>
 * Nothing here holds a class strongly from the engine's side. A {@code ClassValue}'s value lives with the class
 * it was computed for, so when an application's class loader is discarded (a reload, a redeploy, a dev-tools
 * restart) while the engine lives on in a parent loader, the values of its classes go with it.
 *
 * @param <P> what is planned for a method
 */
public final class MethodPlans<P> {

    /** One class's values: parallel arrays, replaced whole on insert. */
    private static final class ClassPlans {
        volatile Method[] methods = new Method[0];
        volatile Object[] plans = new Object[0];

        Object find(Method method) {
            Method[] m = methods;
            Object[] p = plans;
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

        synchronized Object add(Method method, Function<Method, ?> planner) {
            Object known = find(method);
            if (known != null) {
                return known;
            }
            Object plan = planner.apply(method); // a planner that throws caches nothing
            int n = methods.length;
            Method[] m = Arrays.copyOf(methods, n + 1);
            Object[] p = Arrays.copyOf(plans, n + 1);
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

    /** The value of {@code method}, made by {@code planner} on first use (and never cached when it throws). */
    @SuppressWarnings("unchecked")
    public P get(Method method, Function<Method, ? extends P> planner) {
        ClassPlans plans = byClass.get(method.getDeclaringClass());
        Object plan = plans.find(method);
        return (P) (plan != null ? plan : plans.add(method, planner));
    }
}
