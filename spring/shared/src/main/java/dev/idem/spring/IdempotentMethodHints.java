package dev.idem.spring;

import dev.idem.Idempotent;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ReflectionUtils;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What Idem reads by reflection at run time for the {@code @Idempotent} methods of one class, as hints for an image
 * built ahead of time (a GraalVM native image), where reflection sees only what was registered:
 * <ul>
 *   <li>each method and its annotations, which the engine plans from;</li>
 *   <li>the classes its arguments and its result are made of, reached through their fields, type arguments and
 *       array components: the key is derived from their declared fields (or record components, or the getters a
 *       key path names), and a result is decoded into its declared type by its constructors and accessors;</li>
 *   <li>the Java serialization of those that are {@link Serializable}, and of the exceptions the method declares,
 *       which the java codec and the failure codec store.</li>
 * </ul>
 * The JDK's own classes are left to the image: the engine encodes and decodes them without reflection.
 */
final class IdempotentMethodHints {
    private final RuntimeHints hints;
    private final Set<Class<?>> registered = new HashSet<>();

    private IdempotentMethodHints(RuntimeHints hints) {
        this.hints = hints;
    }

    /** {@return the {@code @Idempotent} methods of {@code type}, its inherited ones included} */
    static List<Method> of(Class<?> type) {
        List<Method> methods = new ArrayList<>();
        ReflectionUtils.doWithMethods(type, methods::add,
                method -> method.isAnnotationPresent(Idempotent.class) && !method.isBridge());
        return methods;
    }

    /** Registers the hints of {@code methods} in {@code hints}. */
    static void register(RuntimeHints hints, List<Method> methods) {
        IdempotentMethodHints registration = new IdempotentMethodHints(hints);
        for (Method method : methods) {
            registration.method(method);
        }
    }

    private void method(Method method) {
        hints.reflection().registerMethod(method, ExecutableMode.INTROSPECT);
        for (Type parameter : method.getGenericParameterTypes()) {
            reach(parameter);
        }
        reach(method.getGenericReturnType());
        for (Class<?> thrown : method.getExceptionTypes()) {
            if (!isTheJdks(thrown)) {
                hints.reflection().registerType(thrown, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
            }
            hints.serialization().registerType(TypeReference.of(thrown));
        }
    }

    /** Registers the classes {@code type} names, and what their fields are made of. */
    private void reach(Type type) {
        if (type instanceof Class<?> c) {
            reach(c);
        } else if (type instanceof ParameterizedType parameterized) {
            reach(parameterized.getRawType());
            for (Type argument : parameterized.getActualTypeArguments()) {
                reach(argument);
            }
        } else if (type instanceof GenericArrayType array) {
            reach(array.getGenericComponentType());
        } else if (type instanceof WildcardType wildcard) {
            for (Type bound : wildcard.getUpperBounds()) {
                reach(bound);
            }
        } else if (type instanceof TypeVariable<?> variable) {
            for (Type bound : variable.getBounds()) {
                reach(bound);
            }
        }
    }

    private void reach(Class<?> type) {
        if (type.isArray()) {
            reach(type.getComponentType());
            return;
        }
        if (type.isPrimitive() || isTheJdks(type) || !registered.add(type)) {
            return;
        }
        hints.reflection().registerType(type, MemberCategory.DECLARED_FIELDS,
                MemberCategory.INVOKE_DECLARED_CONSTRUCTORS, MemberCategory.INVOKE_PUBLIC_METHODS);
        if (Serializable.class.isAssignableFrom(type)) {
            hints.serialization().registerType(TypeReference.of(type));
        }
        for (Class<?> c = type; c != null && !isTheJdks(c); c = c.getSuperclass()) {
            if (c != type && registered.add(c)) {
                hints.reflection().registerType(c, MemberCategory.DECLARED_FIELDS);
            }
            for (Field field : c.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers())) {
                    reach(field.getGenericType());
                }
            }
        }
    }

    private static boolean isTheJdks(Class<?> type) {
        String name = type.getName();
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                || name.startsWith("sun.");
    }
}
