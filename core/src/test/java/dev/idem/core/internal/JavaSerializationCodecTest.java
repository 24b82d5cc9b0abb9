package dev.idem.core.internal;

import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.lang.reflect.Type;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The java codec's bodies: compact forms for common values, serialization under the allow-list for the rest. */
class JavaSerializationCodecTest {
    record Article(String title, List<String> tags) implements Serializable {
    }

    private static JavaSerializationCodec codecFor(Class<?> declared) {
        return codecFor(declared, declared);
    }

    private static JavaSerializationCodec codecFor(Class<?> raw, Type declared) {
        return new JavaSerializationCodec(raw, DecodeAllowList.forType(declared),
                JavaSerializationCodecTest.class.getClassLoader());
    }

    @Test
    void commonValuesRoundTripInTheirCompactForms() throws Exception {
        JavaSerializationCodec strings = codecFor(String.class);
        byte[] text = strings.encode("caf\u00e9 \ud83d\ude00");
        assertEquals(1 + "caf\u00e9 \ud83d\ude00".getBytes(java.nio.charset.StandardCharsets.UTF_8).length, text.length);
        assertEquals("caf\u00e9 \ud83d\ude00", strings.decode(text, 1));
        assertNull(strings.decode(strings.encode(null), 1));

        JavaSerializationCodec longs = codecFor(long.class);
        assertEquals(Long.MIN_VALUE, longs.decode(longs.encode(Long.MIN_VALUE), 1));
        JavaSerializationCodec ints = codecFor(Integer.class);
        assertEquals(-7, ints.decode(ints.encode(-7), 1));
        JavaSerializationCodec booleans = codecFor(boolean.class);
        assertEquals(true, booleans.decode(booleans.encode(true), 1));
        assertEquals(false, booleans.decode(booleans.encode(false), 1));
        JavaSerializationCodec bytes = codecFor(byte[].class);
        assertArrayEquals(new byte[] {0, -1, 7}, (byte[]) bytes.decode(bytes.encode(new byte[] {0, -1, 7}), 1));
        JavaSerializationCodec objects = codecFor(Object.class);
        assertEquals("x", objects.decode(objects.encode("x"), 1));
    }

    @Test
    void otherValuesAreSerializedUnderTheAllowList() throws Exception {
        JavaSerializationCodec articles = codecFor(Article.class);
        Article article = new Article("Ownership", List.of("rust", "memory"));
        byte[] encoded = articles.encode(article);
        assertEquals(1, encoded[0], "the serialized form");
        assertEquals(article, articles.decode(encoded, 1));
    }

    @Test
    void aCompactValueOfAnotherTypeThanTheDeclaredOneIsRefused() throws Exception {
        byte[] text = codecFor(String.class).encode("not a number");
        java.io.InvalidClassException e = assertThrows(java.io.InvalidClassException.class,
                () -> codecFor(Long.class).decode(text, 1));
        assertTrue(e.getMessage().contains("not this method's result type"), e.getMessage());
    }

    @Test
    void anUnknownFormIsRefused() {
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> codecFor(String.class).decode(new byte[] {99, 1, 2}, 1));
        assertTrue(e.getMessage().contains("form"), e.getMessage());
        assertThrows(java.io.IOException.class, () -> codecFor(String.class).decode(new byte[0], 1));
    }
}
