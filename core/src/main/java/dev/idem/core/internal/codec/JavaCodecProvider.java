package dev.idem.core.internal.codec;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.ResultCodecProvider;
import dev.idem.codec.UnsupportedResultTypeException;
import dev.idem.core.internal.key.ValueKind;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code java} codec: Java serialization behind an allow-list (see {@link JavaSerializationCodec}), built into
 * the core, priority 0. It can store what Java serialization can, so it checks, before the method ever runs, that
 * every concrete class reachable from the declared type (type arguments, array components, record components and
 * fields, recursively) is {@code Serializable}. Interfaces and abstract types cannot be checked until a value
 * arrives.
 */
public final class JavaCodecProvider implements ResultCodecProvider {
    /** The codec's name, {@value}. */
    public static final String NAME = "java";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int formatVersion() {
        return 1;
    }

    @Override
    public ResultCodec forType(Type type, ClassLoader loader) throws UnsupportedResultTypeException {
        requireSerializable(type);
        return new JavaSerializationCodec(DeclaredTypes.raw(type), DecodeAllowList.forType(type), loader);
    }

    /** Walks the declared type as decoding will meet it, and names the first class that cannot be serialized. */
    private static void requireSerializable(Type declared) throws UnsupportedResultTypeException {
        Set<Type> seen = new HashSet<>();
        Deque<Type> pending = new ArrayDeque<>();
        pending.add(declared);
        seen.add(declared);
        while (!pending.isEmpty()) {
            Type type = pending.poll();
            for (Type next : parts(type)) {
                if (seen.add(next)) {
                    pending.add(next);
                }
            }
            if (type instanceof Class && !isStorable((Class<?>) type)) {
                throw new UnsupportedResultTypeException(describe((Class<?>) type, declared)
                        + " is not Serializable, so the java codec cannot store it; declare it 'implements"
                        + " java.io.Serializable' (and its fields' types too), or add idem-codec-jackson to store"
                        + " results as JSON, where records and plain classes need no marker interface");
            }
        }
    }

    private static boolean isStorable(Class<?> c) {
        if (c.isPrimitive() || c.isArray() || c.isInterface() || Modifier.isAbstract(c.getModifiers())
                || c == Void.class || c == Object.class) {
            return true; // arrays are checked through their components; abstract types only when a value arrives
        }
        return Serializable.class.isAssignableFrom(c);
    }

    private static List<Type> parts(Type type) {
        if (type instanceof ParameterizedType) {
            ParameterizedType p = (ParameterizedType) type;
            List<Type> parts = new java.util.ArrayList<>(List.of(p.getActualTypeArguments()));
            parts.add(p.getRawType());
            return parts;
        }
        if (type instanceof GenericArrayType) {
            return List.of(((GenericArrayType) type).getGenericComponentType());
        }
        if (type instanceof WildcardType) {
            return List.of(((WildcardType) type).getUpperBounds());
        }
        if (type instanceof TypeVariable) {
            return List.of(((TypeVariable<?>) type).getBounds());
        }
        Class<?> c = (Class<?>) type;
        if (c.isArray()) {
            return List.of(c.getComponentType());
        }
        if (c.isPrimitive() || ValueKind.isJdk(c)) {
            return List.of(); // the JDK's own classes serialize their innards themselves
        }
        List<Type> fields = new java.util.ArrayList<>();
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field field : k.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && !Modifier.isTransient(field.getModifiers())) {
                    fields.add(field.getGenericType());
                }
            }
        }
        return fields;
    }

    /** {@code Topic}, or {@code Topic (in List<Topic>)}: where in the declared type the class was met. */
    private static String describe(Class<?> c, Type declared) {
        if (c.equals(declared)) {
            return c.getName();
        }
        return c.getName() + " (in " + declared.getTypeName() + ")";
    }
}
