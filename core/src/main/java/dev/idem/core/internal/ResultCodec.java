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

/**
 * Encodes one method's results for the store and decodes them under that method's {@link DecodeAllowList}.
 *
 * <p>The format is a version byte followed by Java serialization. Serialization is used because it round-trips
 * the JDK's value types and the application's records exactly without another dependency; its well-known danger,
 * decoding arbitrary classes, is closed by the allow-list filter, which refuses every class outside the list
 * before it is initialised. Classes are resolved in the method's own class loader, so results decode to the
 * application's classes also under fat-jar launchers and containers.
 */
final class ResultCodec {
    private static final byte FORMAT = 1;

    private final String operation;
    private final DecodeAllowList allowList;
    private final ClassLoader loader;

    ResultCodec(String operation, DecodeAllowList allowList, ClassLoader loader) {
        this.operation = operation;
        this.allowList = allowList;
        this.loader = loader;
    }

    /** The stored form of {@code value}; throws {@link NotSerializableException} for a value it cannot store. */
    byte[] encode(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        bytes.write(FORMAT);
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
        if (encoded.length == 0 || encoded[0] != FORMAT) {
            throw new IdempotencyStoreException(operation + ": the stored result of " + key
                    + " is not in a format this version of Idem writes");
        }
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
