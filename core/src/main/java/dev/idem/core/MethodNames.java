package dev.idem.core;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How every Idem message names a method, {@code com.acme.OrderService#create(String, Cart)}: the declaring class's
 * binary name, the method's name and its parameter types' simple names. Front-ends and build tools use it so that
 * their messages name a method as the engine's do.
 */
public final class MethodNames {
    private MethodNames() {
    }

    /**
     * @param m a method
     * @return its name as Idem's messages give it
     */
    public static String describe(Method m) {
        return m.getDeclaringClass().getName() + "#" + m.getName() + Arrays.stream(m.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
