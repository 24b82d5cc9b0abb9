package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.UnsupportedResultTypeException;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/** Test helpers: a codec for a declared type, as the engine would ask for it. */
final class Codecs {
    private Codecs() {
    }

    /** Captures a generic type: {@code new TypeOf<List<Topic>>() {}.type}. */
    abstract static class TypeOf<T> {
        final Type type;

        TypeOf() {
            this.type = ((ParameterizedType) getClass().getGenericSuperclass()).getActualTypeArguments()[0];
        }
    }

    static ResultCodec codec(Type type) {
        try {
            return new JsonResultCodecProvider().forType(type, Codecs.class.getClassLoader());
        } catch (UnsupportedResultTypeException e) {
            throw new AssertionError("refused " + type.getTypeName() + ": " + e.getMessage(), e);
        }
    }

    static ResultCodec codec(TypeOf<?> type) {
        return codec(type.type);
    }

    /** Encodes and decodes, as a first call and a replay would. */
    static Object roundTrip(ResultCodec codec, Object value) throws Exception {
        byte[] body = codec.encode(value);
        return codec.decode(body, JsonResultCodecProvider.FORMAT_VERSION);
    }

    /** The JSON of a body, without the newline that ends every body. */
    static String json(ResultCodec codec, Object value) throws Exception {
        String body = new String(codec.encode(value), java.nio.charset.StandardCharsets.UTF_8);
        if (!body.endsWith("\n") || body.indexOf('\n') != body.length() - 1) {
            throw new AssertionError("a body is one line ending with a newline: " + body);
        }
        return body.substring(0, body.length() - 1);
    }

    /** Decodes {@code json} as a complete body: with the newline every body ends with. */
    static Object decode(ResultCodec codec, String json) throws Exception {
        return codec.decode((json + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8),
                JsonResultCodecProvider.FORMAT_VERSION);
    }
}
