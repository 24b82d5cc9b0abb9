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
    void eachCompactFormStartsWithItsOwnTagAndHoldsTheValueBigEndian() throws Exception {
        ResultCodec objects = codecFor(Object.class);
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
        ResultCodec objects = codecFor(Object.class);
        for (Object value : List.of("", "x", 0L, -1L, Long.MAX_VALUE, 0, Integer.MIN_VALUE, true, false)) {
            assertEquals(value, objects.decode(objects.encode(value), "k"), String.valueOf(value));
            ResultCodec own = codecFor(value.getClass());
            assertEquals(value, own.decode(own.encode(value), "k"), value.getClass().getName());
        }
        assertArrayEquals(new byte[0], (byte[]) objects.decode(objects.encode(new byte[0]), "k"));
        byte[] stored = {4, 1, 2, 3};
        byte[] decoded = (byte[]) objects.decode(stored, "k");
        decoded[0] = 99;
        assertEquals(1, stored[1], "the decoded bytes are a copy: the caller cannot change what is stored");
    }

    @Test
    void primitiveAndVoidResultsUseTheirBoxes() throws Exception {
        ResultCodec ints = codecFor(int.class);
        assertEquals(7, ints.decode(ints.encode(7), "k"));
        ResultCodec none = codecFor(void.class);
        assertNull(none.decode(none.encode(null), "k"));
        ResultCodec doubles = codecFor(double.class);
        assertEquals(2.5d, doubles.decode(doubles.encode(2.5d), "k"));
        // A compact value of another box than the declared one is refused, primitive or not.
        byte[] aLong = codecFor(long.class).encode(7L);
        assertThrows(IdempotencyStoreException.class, () -> ints.decode(aLong, "k"));
        assertThrows(IdempotencyStoreException.class, () -> codecFor(boolean.class).decode(aLong, "k"));
        assertThrows(IdempotencyStoreException.class, () -> codecFor(long.class).decode(ints.encode(7), "k"));
        assertThrows(IdempotencyStoreException.class, () -> none.decode(aLong, "k"));
    }

    @Test
    void aCompactValueIsRefusedWhenTheDeclaredTypeCannotHoldIt() throws Exception {
        ResultCodec objects = codecFor(Object.class);
        for (Object value : List.of("text", 1L, 2, true, false, new byte[] {1})) {
            byte[] stored = objects.encode(value);
            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                    () -> codecFor(Article.class).decode(stored, "idem:ns:s:abc"));
            assertEquals("Test#op: the stored result of idem:ns:s:abc was refused: a "
                    + value.getClass().getSimpleName() + " is not this method's result type", e.getMessage());
        }
        ResultCodec numbers = codecFor(Number.class);
        assertEquals(3L, numbers.decode(objects.encode(3L), "k"), "a Long is a Number");
        assertEquals("x", codecFor(CharSequence.class).decode(objects.encode("x"), "k"));
    }

    @Test
    void aSerializedResultOfAClassOutsideTheAllowListIsRefusedBeforeItIsRead() throws Exception {
        byte[] stranger = codecFor(Object.class).encode(new Stranger("x"));
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> codecFor(Article.class).decode(stranger, "idem:ns:s:abc"));
        assertTrue(e.getMessage().startsWith("Test#op: the stored result of idem:ns:s:abc was refused: "),
                e.getMessage());
        assertTrue(e.getMessage().contains("only the method's declared result type and JDK value types"),
                e.getMessage());
    }

    @Test
    void corruptSerializedBytesAreAnErrorNamingTheKey() {
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> codecFor(Article.class).decode(new byte[] {1, 0x12, 0x34}, "idem:ns:s:abc"));
        assertTrue(e.getMessage().startsWith("Test#op: the stored result of idem:ns:s:abc could not be decoded"),
                e.getMessage());
    }

    @Test
    void serializedResultsResolveTheirClassesInTheMethodsClassLoaderFirst() throws Exception {
        Article article = new Article("t", List.of("a"));
        byte[] stored = codecFor(Article.class).encode(article);
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        ResultCodec elsewhere = new ResultCodec("Test#op", Article.class, DecodeAllowList.forType(Article.class),
                platform);
        assertEquals(article, elsewhere.decode(stored, "k"), "falls back to the stream's own resolution");

        ClassLoader counting = new ClassLoader(ResultCodecTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                asked.add(name);
                return super.loadClass(name, resolve);
            }
        };
        ResultCodec own = new ResultCodec("Test#op", Article.class, DecodeAllowList.forType(Article.class), counting);
        assertEquals(article, own.decode(stored, "k"));
        assertTrue(asked.contains(Article.class.getName()), "asked the method's loader: " + asked);
    }

    private final java.util.Set<String> asked = java.util.concurrent.ConcurrentHashMap.newKeySet();

    record Stranger(String name) implements Serializable {
    }

    @Test
    void anUnknownFormIsRefused() {
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> codecFor(String.class).decode(new byte[] {99, 1, 2}, "idem:x:y:z"));
        assertTrue(e.getMessage().contains("form"), e.getMessage());
        assertThrows(IdempotencyStoreException.class, () -> codecFor(String.class).decode(new byte[0], "k"));
    }
}
