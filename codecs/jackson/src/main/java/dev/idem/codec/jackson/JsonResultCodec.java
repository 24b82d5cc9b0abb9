package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The {@code json} codec of one declared result type: a reader and a writer for exactly that type, made once when the
 * method is planned. Thread-safe (Jackson's readers and writers are immutable).
 *
 * <p>A body is one line: compact JSON, which never holds a raw newline, then {@code '\n'}. The newline marks the
 * end, so that a body cut short is refused even where the JSON before the cut would parse (the number {@code 12345}
 * cut to {@code 123}); and a dump of bodies is JSON Lines.
 */
final class JsonResultCodec implements ResultCodec {
    private static final byte END = '\n';
    private static final byte[] NULL = "null\n".getBytes(StandardCharsets.US_ASCII);

    private final JavaType type;
    private final Class<?> rawType;
    private final ObjectReader reader;
    private final ObjectWriter writer;

    JsonResultCodec(JsonMapper mapper, JavaType type) {
        this.type = type;
        this.rawType = type.getRawClass();
        this.reader = mapper.readerFor(type);
        this.writer = mapper.writerFor(type);
    }

    @Override
    public byte[] encode(Object value) {
        if (value == null) {
            return NULL.clone();
        }
        if (!rawType.isInstance(value)) {
            // The engine hands over what the method returned; a mismatch is heap pollution through generics.
            throw new IllegalArgumentException("a " + value.getClass().getName() + " is not a " + type.toCanonical()
                    + ", the declared result type");
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        writer.writeValue(body, value);
        body.write(END);
        return body.toByteArray();
    }

    /**
     * @throws EOFException when the body does not end with the newline every body ends with: it was cut short
     * @throws IOException  when the body is of a format version this release does not read
     * @throws tools.jackson.core.JacksonException (unchecked) when the body is not JSON of the declared type: malformed
     *         ({@code StreamReadException}), past a limit such as the nesting depth
     *         ({@code StreamConstraintsException}), or of another shape ({@code DatabindException})
     */
    @Override
    public Object decode(byte[] body, int formatVersion) throws IOException {
        if (formatVersion != JsonResultCodecProvider.FORMAT_VERSION) {
            throw new IOException("json body of format version " + formatVersion + ", which this release does not"
                    + " read (it reads " + JsonResultCodecProvider.FORMAT_VERSION + ")");
        }
        if (body.length == 0 || body[body.length - 1] != END) {
            throw new EOFException("json body of " + body.length + " bytes is cut short: it does not end with the"
                    + " newline that ends every body");
        }
        if (Arrays.equals(body, NULL)) {
            // Explicitly, because some types' deserializers turn a JSON null into a value of their own (an empty
            // Optional), and the method returned null.
            return null;
        }
        return reader.readValue(body, 0, body.length - 1);
    }

    @Override
    public String toString() {
        return "json codec of " + type.toCanonical();
    }
}
