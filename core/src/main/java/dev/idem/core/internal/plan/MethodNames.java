package dev.idem.core.internal.plan;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

/** How every Idem message names a method: {@code com.acme.OrderService#create(String, Cart)}. Not API. */
public final class MethodNames {
    private MethodNames() {
    }

    public static String describe(Method m) {
        return m.getDeclaringClass().getName() + "#" + m.getName() + Arrays.stream(m.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
