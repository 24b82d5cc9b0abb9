package dev.idem.core.internal;

import dev.idem.IdempotencyStoreException;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.lang.reflect.Type;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultCodecTest {
    record Article(String title, List<String> tags) implements Serializable {
    }

    private static ResultCodec codecFor(Class<?> declared) {
        return codecFor(declared, declared);
    }

    private static ResultCodec codecFor(Class<?> raw, Type declared) {
        return new ResultCodec("Test#op", raw, DecodeAllowList.forType(declared), ResultCodecTest.class.getClassLoader());
    }

    @Test
    void commonValuesRoundTripInTheirCompactForms() throws Exception {
        ResultCodec strings = codecFor(String.class);
        byte[] text = strings.encode("caf\u00e9 \ud83d\ude00");
        assertEquals(1 + "caf\u00e9 \ud83d\ude00".getBytes(java.nio.charset.StandardCharsets.UTF_8).length, text.length);
        assertEquals("caf\u00e9 \ud83d\ude00", strings.decode(text, "k"));
        assertNull(strings.decode(strings.encode(null), "k"));

        ResultCodec longs = codecFor(long.class);
        assertEquals(Long.MIN_VALUE, longs.decode(longs.encode(Long.MIN_VALUE), "k"));
        ResultCodec ints = codecFor(Integer.class);
        assertEquals(-7, ints.decode(ints.encode(-7), "k"));
        ResultCodec booleans = codecFor(boolean.class);
        assertEquals(true, booleans.decode(booleans.encode(true), "k"));
        assertEquals(false, booleans.decode(booleans.encode(false), "k"));
        ResultCodec bytes = codecFor(byte[].class);
        assertArrayEquals(new byte[] {0, -1, 7}, (byte[]) bytes.decode(bytes.encode(new byte[] {0, -1, 7}), "k"));
        ResultCodec objects = codecFor(Object.class);
        assertEquals("x", objects.decode(objects.encode("x"), "k"));
    }

    @Test
    void otherValuesAreSerializedUnderTheAllowList() throws Exception {
        ResultCodec articles = codecFor(Article.class);
        Article article = new Article("Ownership", List.of("rust", "memory"));
        byte[] encoded = articles.encode(article);
        assertEquals(1, encoded[0], "the serialized form");
        assertEquals(article, articles.decode(encoded, "k"));
    }

    @Test
    void aCompactValueOfAnotherTypeThanTheDeclaredOneIsRefused() throws Exception {
        byte[] text = codecFor(String.class).encode("not a number");
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> codecFor(Long.class).decode(text, "idem:x:y:z"));
        assertTrue(e.getMessage().contains("refused"), e.getMessage());
    }

    @Test
    void anUnknownFormIsRefused() {
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> codecFor(String.class).decode(new byte[] {99, 1, 2}, "idem:x:y:z"));
        assertTrue(e.getMessage().contains("form"), e.getMessage());
        assertThrows(IdempotencyStoreException.class, () -> codecFor(String.class).decode(new byte[0], "k"));
    }
}
