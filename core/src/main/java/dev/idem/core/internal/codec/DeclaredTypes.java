package dev.idem.core.internal.codec;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/** What a method's declared result type erases to, for the checks and codecs that work on classes. */
public final class DeclaredTypes {
    private DeclaredTypes() {
    }

    /**
     * The class {@code type} erases to: itself for a class, its raw class for a parameterised type, {@code Object}
     * for a type variable or a wildcard (whose bound a stored result cannot be checked against more closely).
     *
     * @param type a declared type
     * @return its raw class
     */
    public static Class<?> raw(Type type) {
        if (type instanceof Class) {
            return (Class<?>) type;
        }
        if (type instanceof ParameterizedType) {
            return (Class<?>) ((ParameterizedType) type).getRawType();
        }
        return Object.class;
    }
}
