package dev.idem.core.internal.key;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.channels.Channel;
import java.time.Duration;
import java.time.Period;
import java.time.ZoneId;
import java.time.temporal.TemporalAccessor;
import java.util.Collection;
import java.util.Currency;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.Spliterator;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

/**
 * How the canonical encoding treats a class. Computed once per class ({@link #of}), so encoding a value does one
 * {@link ClassValue} lookup and a switch.
 */
public enum ValueKind {
    BOOLEAN, INTEGRAL, BIG_INTEGER, FLOATING, DECIMAL, CHAR, STRING, ENUM, UUID, TEMPORAL, SCALAR, BYTES,
    PRIMITIVE_ARRAY, OBJECT_ARRAY, OPTIONAL, PRIMITIVE_OPTIONAL, LIST, SET, MAP, RECORD, PLAIN_OBJECT,
    /** Not data: streams, I/O, threads, lambdas, the JDK's other classes. Encoding one is an error. */
    UNENCODABLE;

    private static final List<Class<?>> NOT_DATA = List.of(BaseStream.class, Iterator.class, Spliterator.class,
            InputStream.class, OutputStream.class, Reader.class, Writer.class, Socket.class, ServerSocket.class,
            Channel.class, Thread.class, ThreadGroup.class, Future.class, java.util.concurrent.CompletionStage.class,
            Executor.class, ClassLoader.class, AutoCloseable.class);

    private static final ClassValue<ValueKind> KINDS = new ClassValue<>() {
        @Override
        protected ValueKind computeValue(Class<?> type) {
            return classify(type);
        }
    };

    static ValueKind of(Class<?> type) {
        return KINDS.get(type);
    }

    /**
     * True when a declared parameter type can never hold data: a stream, a callback, a connection. Such parameters
     * are left out of the payload hash and may not be key parameters.
     */
    public static boolean isNeverData(Class<?> declared) {
        if (declared.isPrimitive()) {
            return false;
        }
        for (Class<?> notData : NOT_DATA) {
            if (notData.isAssignableFrom(declared)) {
                return true;
            }
        }
        return declared.isInterface() && declared.isAnnotationPresent(FunctionalInterface.class);
    }

    private static ValueKind classify(Class<?> type) {
        if (type == Boolean.class) {
            return BOOLEAN;
        }
        if (type == Integer.class || type == Long.class || type == Short.class || type == Byte.class) {
            return INTEGRAL;
        }
        if (type == BigInteger.class) {
            return BIG_INTEGER;
        }
        if (type == Double.class || type == Float.class) {
            return FLOATING;
        }
        if (type == BigDecimal.class) {
            return DECIMAL;
        }
        if (type == Character.class) {
            return CHAR;
        }
        if (CharSequence.class.isAssignableFrom(type)) {
            return STRING;
        }
        if (Enum.class.isAssignableFrom(type)) {
            return ENUM;
        }
        if (type == java.util.UUID.class) {
            return UUID;
        }
        if (TemporalAccessor.class.isAssignableFrom(type) || type == Duration.class || type == Period.class
                || ZoneId.class.isAssignableFrom(type)) {
            return isJdk(type) ? TEMPORAL : UNENCODABLE;
        }
        if (type == URI.class || type == Locale.class || type == Currency.class) {
            return SCALAR;
        }
        if (type == byte[].class) {
            return BYTES;
        }
        if (type.isArray()) {
            return type.getComponentType().isPrimitive() ? PRIMITIVE_ARRAY : OBJECT_ARRAY;
        }
        if (type == Optional.class) {
            return OPTIONAL;
        }
        if (type == OptionalInt.class || type == OptionalLong.class || type == OptionalDouble.class) {
            return PRIMITIVE_OPTIONAL;
        }
        if (Set.class.isAssignableFrom(type)) {
            return SET;
        }
        if (Collection.class.isAssignableFrom(type)) {
            return LIST;
        }
        if (Map.class.isAssignableFrom(type)) {
            return MAP;
        }
        // An anonymous class is a callback like a lambda: its behaviour is its code, which its fields do not show, so
        // two of them with equal fields would otherwise be one key.
        if (isNeverData(type) || isJdk(type) || type.isSynthetic() || type.isHidden() || type.isAnonymousClass()
                || type.getName().contains("$$Lambda") || Modifier.isAbstract(type.getModifiers())) {
            return UNENCODABLE;
        }
        return type.isRecord() ? RECORD : PLAIN_OBJECT;
    }

    /** The JDK's own classes other than the value types above have no canonical form (identity, native state). */
    public static boolean isJdk(Class<?> type) {
        String name = type.getName();
        return type.getClassLoader() == null || name.startsWith("java.") || name.startsWith("javax.")
                || name.startsWith("jdk.") || name.startsWith("sun.") || name.startsWith("com.sun.");
    }
}
