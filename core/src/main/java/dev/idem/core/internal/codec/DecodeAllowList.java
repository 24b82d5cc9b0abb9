package dev.idem.core.internal.codec;

import dev.idem.core.internal.key.ValueKind;

import java.io.ObjectInputFilter;
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
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The classes a stored result may decode into: those reachable from the method's declared result type (the type,
 * its type arguments, and for the application's own classes their fields' types, recursively, plus subclasses of
 * the application's own abstract types there), and the JDK's value types (java.lang boxes and String,
 * java.util collections, java.time, java.math). Anything else in a stored result is refused before its class is
 * initialised, so a poisoned store cannot run code in the application.
 */
final class DecodeAllowList implements ObjectInputFilter {
    private static final long MAX_DEPTH = 64;
    private static final long MAX_REFERENCES = 1_000_000;
    private static final long MAX_ARRAY_LENGTH = 50_000_000;

    private final Set<Class<?>> applicationTypes;

    private DecodeAllowList(Set<Class<?>> applicationTypes) {
        this.applicationTypes = applicationTypes;
    }

    static DecodeAllowList forType(Type declared) {
        Set<Class<?>> app = new LinkedHashSet<>();
        Deque<Type> pending = new ArrayDeque<>();
        pending.add(declared);
        Set<Type> seen = new HashSet<>();
        while (!pending.isEmpty()) {
            Type type = pending.poll();
            if (!seen.add(type)) {
                continue;
            }
            if (type instanceof ParameterizedType) {
                ParameterizedType p = (ParameterizedType) type;
                pending.add(p.getRawType());
                pending.addAll(List.of(p.getActualTypeArguments()));
            } else if (type instanceof GenericArrayType) {
                pending.add(((GenericArrayType) type).getGenericComponentType());
            } else if (type instanceof WildcardType) {
                pending.addAll(List.of(((WildcardType) type).getUpperBounds()));
            } else if (type instanceof TypeVariable) {
                pending.addAll(List.of(((TypeVariable<?>) type).getBounds()));
            } else if (type instanceof Class) {
                Class<?> c = (Class<?>) type;
                if (c.isArray()) {
                    pending.add(c.getComponentType());
                } else if (!c.isPrimitive() && !ValueKind.isJdk(c)) {
                    app.add(c);
                    for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                        for (Field field : k.getDeclaredFields()) {
                            if (!Modifier.isStatic(field.getModifiers()) && !Modifier.isTransient(field.getModifiers())) {
                                pending.add(field.getGenericType());
                            }
                        }
                    }
                }
            }
        }
        return new DecodeAllowList(Set.copyOf(app));
    }

    @Override
    public Status checkInput(FilterInfo info) {
        if (info.depth() > MAX_DEPTH || info.references() > MAX_REFERENCES
                || info.arrayLength() > MAX_ARRAY_LENGTH) {
            return Status.REJECTED;
        }
        Class<?> c = info.serialClass();
        if (c == null) {
            return Status.UNDECIDED;
        }
        return allows(c) ? Status.ALLOWED : Status.REJECTED;
    }

    boolean allows(Class<?> c) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (c.isPrimitive() || isJdkValueType(c) || applicationTypes.contains(c)) {
            return true;
        }
        if (ValueKind.isJdk(c)) {
            return false;
        }
        for (Class<?> allowed : applicationTypes) {
            // a subclass of one of the application's own declared types, e.g. a sealed hierarchy's members
            if ((allowed.isInterface() || Modifier.isAbstract(allowed.getModifiers())) && allowed.isAssignableFrom(c)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isJdkValueType(Class<?> c) {
        String name = c.getName();
        if (c.getClassLoader() != null) {
            return false;
        }
        if (name.startsWith("java.lang.")) {
            return c == String.class || c == Boolean.class || c == Character.class || c == Number.class
                    || Number.class.isAssignableFrom(c) && name.lastIndexOf('.') == 9 || c == Enum.class
                    || c == Record.class || c == Object.class;
        }
        return name.startsWith("java.util.") && !name.startsWith("java.util.concurrent.locks.")
                && !name.startsWith("java.util.logging.") && !name.startsWith("java.util.prefs.")
                && !name.startsWith("java.util.jar.") && !name.startsWith("java.util.zip.")
                || name.startsWith("java.time.") || name.startsWith("java.math.") || c == java.net.URI.class;
    }
}
