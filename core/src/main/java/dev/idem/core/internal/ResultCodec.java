package dev.idem.core.internal;

import dev.idem.IdempotencyStoreException;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encodes one method's results for the store and decodes them under that method's {@link DecodeAllowList}.
 *
 * <p>The first byte says the form. The commonest results ({@code null}, {@code String}, {@code byte[]}, boxed
 * {@code Long}, {@code Integer}, {@code Boolean}) get a compact form of their own, which costs a few bytes and no
 * stream set-up. Everything else is Java serialization. Serialization is used because it round-trips
 * the JDK's value types and the application's records exactly without another dependency; its well-known danger,
 * decoding arbitrary classes, is closed by the allow-list filter, which refuses every class outside the list
 * before it is initialised. Classes are resolved in the method's own class loader, so results decode to the
 * application's classes also under fat-jar launchers and containers.
 */
final class ResultCodec {
    private static final byte SERIALIZED = 1;
    private static final byte NULL = 2;
    private static final byte STRING = 3;
    private static final byte BYTES = 4;
    private static final byte LONG = 5;
    private static final byte INTEGER = 6;
    private static final byte TRUE = 7;
    private static final byte FALSE = 8;

    private final String operation;
    private final Class<?> declared;
    private final DecodeAllowList allowList;
    private final ClassLoader loader;

    /**
     * @param declared the declared result type's raw class, which a compactly stored value must be an instance of
     */
    ResultCodec(String operation, Class<?> declared, DecodeAllowList allowList, ClassLoader loader) {
        this.operation = operation;
        this.declared = wrapper(declared);
        this.allowList = allowList;
        this.loader = loader;
    }

    private static Class<?> wrapper(Class<?> type) {
        if (!type.isPrimitive()) {
            return type;
        }
        return type == long.class ? Long.class : type == int.class ? Integer.class
                : type == boolean.class ? Boolean.class : type == void.class ? Void.class : type;
    }

    /** The stored form of {@code value}; throws {@link NotSerializableException} for a value it cannot store. */
    byte[] encode(Object value) throws IOException {
        if (value == null) {
            return new byte[] {NULL};
        }
        Class<?> type = value.getClass();
        if (type == String.class) {
            return tagged(STRING, ((String) value).getBytes(StandardCharsets.UTF_8));
        }
        if (type == byte[].class) {
            return tagged(BYTES, (byte[]) value);
        }
        if (type == Long.class) {
            return ByteBuffer.allocate(9).put(LONG).putLong((Long) value).array();
        }
        if (type == Integer.class) {
            return ByteBuffer.allocate(5).put(INTEGER).putInt((Integer) value).array();
        }
        if (type == Boolean.class) {
            return new byte[] {(Boolean) value ? TRUE : FALSE};
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        bytes.write(SERIALIZED);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    /**
     * The value stored in {@code encoded}.
     *
     * @throws IdempotencyStoreException when the bytes are not a result of this method (corrupt, or a class
     *                                   outside the allow-list); the method is not run in that case
     */
    Object decode(byte[] encoded, String key) {
        byte form = encoded.length == 0 ? 0 : encoded[0];
        switch (form) {
            case NULL:
                return null;
            case STRING:
                return allowed(String.class, key, new String(encoded, 1, encoded.length - 1, StandardCharsets.UTF_8));
            case BYTES:
                return allowed(byte[].class, key, Arrays.copyOfRange(encoded, 1, encoded.length));
            case LONG:
                return allowed(Long.class, key, ByteBuffer.wrap(encoded, 1, 8).getLong());
            case INTEGER:
                return allowed(Integer.class, key, ByteBuffer.wrap(encoded, 1, 4).getInt());
            case TRUE:
            case FALSE:
                return allowed(Boolean.class, key, form == TRUE);
            case SERIALIZED:
                return deserialize(encoded, key);
            default:
                throw new IdempotencyStoreException(operation + ": the stored result of " + key
                        + " is not in a form this version of Idem writes");
        }
    }

    private static byte[] tagged(byte tag, byte[] payload) {
        byte[] out = new byte[payload.length + 1];
        out[0] = tag;
        System.arraycopy(payload, 0, out, 1, payload.length);
        return out;
    }

    private Object allowed(Class<?> type, String key, Object value) {
        if (!declared.isAssignableFrom(type) || !allowList.allows(type)) {
            throw new IdempotencyStoreException(operation + ": the stored result of " + key + " was refused: a "
                    + type.getSimpleName() + " is not this method's result type");
        }
        return value;
    }

    private Object deserialize(byte[] encoded, String key) {
        try (ObjectInputStream in = new ObjectInputStream(
                new ByteArrayInputStream(encoded, 1, encoded.length - 1)) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    return super.resolveClass(desc);
                }
            }
        }) {
            in.setObjectInputFilter(allowList);
            return in.readObject();
        } catch (InvalidClassException e) {
            throw new IdempotencyStoreException(operation + ": the stored result of " + key + " was refused: "
                    + e.getMessage() + " (only the method's declared result type and JDK value types may be"
                    + " decoded; a stored result naming other classes was written by something else)", e);
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            throw new IdempotencyStoreException(operation + ": the stored result of " + key
                    + " could not be decoded: " + e, e);
        }
    }
}
