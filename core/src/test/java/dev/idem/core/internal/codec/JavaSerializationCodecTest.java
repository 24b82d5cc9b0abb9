package dev.idem.core.internal.codec;

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
    void eachCompactFormStartsWithItsOwnTagAndHoldsTheValueBigEndian() throws Exception {
        JavaSerializationCodec objects = codecFor(Object.class);
        assertArrayEquals(new byte[] {2}, objects.encode(null));
        assertArrayEquals(new byte[] {3, 'h', 'i'}, objects.encode("hi"));
        assertArrayEquals(new byte[] {4, 9, 8}, objects.encode(new byte[] {9, 8}));
        assertArrayEquals(new byte[] {5, 0, 0, 0, 0, 0, 0, 1, 2}, objects.encode(258L));
        assertArrayEquals(new byte[] {6, 0, 0, 1, 2}, objects.encode(258));
        assertArrayEquals(new byte[] {7}, objects.encode(true));
        assertArrayEquals(new byte[] {8}, objects.encode(false));
        assertEquals(1, objects.encode((short) 3)[0], "other boxes are serialized");
        assertEquals(1, objects.encode(2.5d)[0]);
    }

    @Test
    void everyCompactValueDecodesUnderADeclaredObjectOrItsOwnType() throws Exception {
        JavaSerializationCodec objects = codecFor(Object.class);
        for (Object value : List.of("", "x", 0L, -1L, Long.MAX_VALUE, 0, Integer.MIN_VALUE, true, false)) {
            assertEquals(value, objects.decode(objects.encode(value), 1), String.valueOf(value));
            JavaSerializationCodec own = codecFor(value.getClass());
            assertEquals(value, own.decode(own.encode(value), 1), value.getClass().getName());
        }
        assertArrayEquals(new byte[0], (byte[]) objects.decode(objects.encode(new byte[0]), 1));
        byte[] stored = {4, 1, 2, 3};
        byte[] decoded = (byte[]) objects.decode(stored, 1);
        decoded[0] = 99;
        assertEquals(1, stored[1], "the decoded bytes are a copy: the caller cannot change what is stored");
    }

    @Test
    void primitiveAndVoidResultsUseTheirBoxes() throws Exception {
        JavaSerializationCodec ints = codecFor(int.class);
        assertEquals(7, ints.decode(ints.encode(7), 1));
        JavaSerializationCodec none = codecFor(void.class);
        assertNull(none.decode(none.encode(null), 1));
        JavaSerializationCodec doubles = codecFor(double.class);
        assertEquals(2.5d, doubles.decode(doubles.encode(2.5d), 1));
        // A compact value of another box than the declared one is refused, primitive or not.
        byte[] aLong = codecFor(long.class).encode(7L);
        assertThrows(java.io.InvalidClassException.class, () -> ints.decode(aLong, 1));
        assertThrows(java.io.InvalidClassException.class, () -> codecFor(boolean.class).decode(aLong, 1));
        assertThrows(java.io.InvalidClassException.class, () -> codecFor(long.class).decode(ints.encode(7), 1));
        assertThrows(java.io.InvalidClassException.class, () -> none.decode(aLong, 1));
    }

    @Test
    void aCompactValueIsRefusedWhenTheDeclaredTypeCannotHoldIt() throws Exception {
        JavaSerializationCodec objects = codecFor(Object.class);
        for (Object value : List.of("text", 1L, 2, true, false, new byte[] {1})) {
            byte[] stored = objects.encode(value);
            java.io.InvalidClassException e = assertThrows(java.io.InvalidClassException.class,
                    () -> codecFor(Article.class).decode(stored, 1));
            assertEquals(value.getClass().getName() + "; a " + value.getClass().getSimpleName()
                    + " is not this method's result type", e.getMessage());
        }
        JavaSerializationCodec numbers = codecFor(Number.class);
        assertEquals(3L, numbers.decode(objects.encode(3L), 1), "a Long is a Number");
        assertEquals("x", codecFor(CharSequence.class).decode(objects.encode("x"), 1));
    }

    @Test
    void aSerializedResultOfAClassOutsideTheAllowListIsRefusedBeforeItIsRead() throws Exception {
        byte[] stranger = codecFor(Object.class).encode(new Stranger("x"));
        java.io.InvalidClassException e = assertThrows(java.io.InvalidClassException.class,
                () -> codecFor(Article.class).decode(stranger, 1));
        assertTrue(e.getMessage().contains("REJECTED"), e.getMessage());
    }

    @Test
    void corruptSerializedBytesAreAnError() {
        // The engine names the key (StoredResults); the codec reports what is wrong with the bytes.
        assertThrows(java.io.IOException.class,
                () -> codecFor(Article.class).decode(new byte[] {1, 0x12, 0x34}, 1));
    }

    @Test
    void serializedResultsResolveTheirClassesInTheMethodsClassLoaderFirst() throws Exception {
        Article article = new Article("t", List.of("a"));
        byte[] stored = codecFor(Article.class).encode(article);
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        JavaSerializationCodec elsewhere = new JavaSerializationCodec(Article.class,
                DecodeAllowList.forType(Article.class), platform);
        assertEquals(article, elsewhere.decode(stored, 1), "falls back to the stream's own resolution");

        ClassLoader counting = new ClassLoader(JavaSerializationCodecTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                asked.add(name);
                return super.loadClass(name, resolve);
            }
        };
        JavaSerializationCodec own = new JavaSerializationCodec(Article.class, DecodeAllowList.forType(Article.class), counting);
        assertEquals(article, own.decode(stored, 1));
        assertTrue(asked.contains(Article.class.getName()), "asked the method's loader: " + asked);
    }

    private final java.util.Set<String> asked = java.util.concurrent.ConcurrentHashMap.newKeySet();

    record Stranger(String name) implements Serializable {
    }

    @Test
    void anUnknownFormIsRefused() {
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> codecFor(String.class).decode(new byte[] {99, 1, 2}, 1));
        assertTrue(e.getMessage().contains("form"), e.getMessage());
        assertThrows(java.io.IOException.class, () -> codecFor(String.class).decode(new byte[0], 1));
    }
}
