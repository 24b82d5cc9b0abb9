package dev.idem.core.internal.codec;

import dev.idem.codec.ResultCodec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The {@code java} codec bound to one declared type: compact forms for the commonest results, Java serialization
 * under the method's {@link DecodeAllowList} for everything else.
 *
 * <p>The first byte of a body says the form. {@code null}, {@code String}, {@code byte[]}, boxed {@code Long},
 * {@code Integer} and {@code Boolean} get a form of their own, which costs a few bytes and no stream set-up.
 * Serialization round-trips the JDK's value types and the application's {@code Serializable} classes exactly;
 * its well-known danger, decoding arbitrary classes, is closed by the allow-list filter, which refuses every class
 * outside the declared type before it is initialised. Classes are resolved in the method's own class loader, so
 * results decode to the application's classes also under fat-jar launchers and containers.
 */
final class JavaSerializationCodec implements ResultCodec {
    private static final byte SERIALIZED = 1;
    private static final byte NULL = 2;
    private static final byte STRING = 3;
    private static final byte BYTES = 4;
    private static final byte LONG = 5;
    private static final byte INTEGER = 6;
    private static final byte TRUE = 7;
    private static final byte FALSE = 8;

    private final Class<?> declared;
    private final DecodeAllowList allowList;
    private final ClassLoader loader;

    /** @param declared the declared result type's raw class, which a compactly stored value must be an instance of */
    JavaSerializationCodec(Class<?> declared, DecodeAllowList allowList, ClassLoader loader) {
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

    @Override
    public byte[] encode(Object value) throws IOException {
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

    @Override
    public Object decode(byte[] body, int formatVersion) throws IOException, ClassNotFoundException {
        byte form = body.length == 0 ? 0 : body[0];
        switch (form) {
            case NULL:
                return null;
            case STRING:
                return allowed(String.class, new String(body, 1, body.length - 1, StandardCharsets.UTF_8));
            case BYTES:
                return allowed(byte[].class, Arrays.copyOfRange(body, 1, body.length));
            case LONG:
                return allowed(Long.class, ByteBuffer.wrap(body, 1, 8).getLong());
            case INTEGER:
                return allowed(Integer.class, ByteBuffer.wrap(body, 1, 4).getInt());
            case TRUE:
            case FALSE:
                return allowed(Boolean.class, form == TRUE);
            case SERIALIZED:
                return deserialize(body);
            default:
                throw new IOException("not a form the java codec writes (first byte " + form + ")");
        }
    }

    /**
     * {@code prefix} followed by what {@link #encode} writes for {@code value}, in one array: for a String of ASCII
     * characters (the commonest small result) neither its UTF-8 bytes nor the tagged body is made on the way.
     * Anything else is encoded as usual and copied after the prefix.
     */
    byte[] encodeAfter(byte[] prefix, Object value) throws IOException {
        if (value instanceof String) {
            String text = (String) value;
            int n = text.length();
            int p = prefix.length;
            byte[] out = Arrays.copyOf(prefix, p + 1 + n);
            out[p] = STRING;
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (c >= 0x80) {
                    return concat(prefix, encode(value));
                }
                out[p + 1 + i] = (byte) c;
            }
            return out;
        }
        return concat(prefix, encode(value));
    }

    private static byte[] concat(byte[] prefix, byte[] body) {
        byte[] out = Arrays.copyOf(prefix, prefix.length + body.length);
        System.arraycopy(body, 0, out, prefix.length, body.length);
        return out;
    }

    private static byte[] tagged(byte tag, byte[] payload) {
        byte[] out = new byte[payload.length + 1];
        out[0] = tag;
        System.arraycopy(payload, 0, out, 1, payload.length);
        return out;
    }

    private Object allowed(Class<?> type, Object value) throws InvalidClassException {
        if (!declared.isAssignableFrom(type) || !allowList.allows(type)) {
            throw new InvalidClassException(type.getName(), "a " + type.getSimpleName()
                    + " is not this method's result type");
        }
        return value;
    }

    private Object deserialize(byte[] body) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(body, 1, body.length - 1)) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    return super.resolveClass(desc);
                }
            }
        }) {
            // An array cannot hold more elements than the stream has bytes left: a length beyond that is a poisoned
            // prefix, refused before the array is allocated (the allow-list's own bound is 50 million elements).
            int streamLength = body.length - 1;
            in.setObjectInputFilter(info -> info.arrayLength() > streamLength ? ObjectInputFilter.Status.REJECTED
                    : allowList.checkInput(info));
            return in.readObject();
        }
    }
}
