package dev.idem.core.internal.key;

import dev.idem.core.ClassLoading;
import dev.idem.core.KeyCanonicalizer;
import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import static dev.idem.core.internal.key.CanonicalDigests.encode;
import static dev.idem.core.internal.key.CanonicalDigests.sha256;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Objects whose fields are all primitives, strings and enums are written by the encoder's flat path: the same bytes
 * as the general path, to the byte (stored keys must not change), and the same refusals.
 */
class FlatObjectEncodingTest {

    enum Colour { RED, GREEN }

    enum Mood {
        CALM,
        HAPPY {
            @Override
            public String toString() {
                return "happy!"; // encoded by name, never by toString
            }
        }
    }

    /** Every kind of field the flat path writes, with the values whose encoding is special. */
    static class AllKinds {
        int i = -7;
        long l = 1L << 40;
        short s = -3;
        byte b = 5;
        boolean z = true;
        boolean off = false;
        double d = -0.0;
        double e = Double.longBitsToDouble(0x7ff8000000000badL); // a NaN other than Double.NaN
        float f = Float.NaN;
        float g = 1.5f;
        char c = '\u00e9';
        String text = "na\u00efve \uD834\uDD1E text";
        String none = null;
        String empty = "";
        Colour colour = Colour.GREEN;
        Colour noColour = null;
        Mood mood = Mood.HAPPY;
    }

    static class Request {
        private final String topic;
        private final int day;

        Request(String topic, int day) {
            this.topic = topic;
            this.day = day;
        }
    }

    record Point(int x, int y) {
    }

    /** Not flat: a field whose declared type leaves its value's class open. */
    static class Open {
        Object value = "x";
    }

    /** Matches nothing encoded here; registered, it sends every object down the general path. */
    private static final Canonicalizers UNRELATED = Canonicalizers.of(List.of(new KeyCanonicalizer<UUID>() {
        @Override
        public Class<UUID> type() {
            return UUID.class;
        }

        @Override
        public Object canonicalize(UUID value) {
            return value.toString();
        }
    }));

    /**
     * {@code value} encoded often enough that its class's objects are written by its composed writer, with every
     * encoding on the way (field by field through reflection, then through the writer) checked to be the same.
     */
    private static byte[] encodeHot(Object value) {
        byte[] first = encode(value, Canonicalizers.NONE);
        for (int i = 0; i <= ObjectLayout.COMPOSE_WRITER_AFTER; i++) {
            assertArrayEquals(first, encode(value, Canonicalizers.NONE), "encoding " + i + " of " + value);
        }
        return first;
    }

    @Test
    void onlyClassesOfPrimitiveStringAndEnumFieldsAreFlat() {
        assertTrue(new ObjectLayout(AllKinds.class).flat);
        assertTrue(new ObjectLayout(Request.class).flat);
        assertTrue(new ObjectLayout(Point.class).flat);
        assertFalse(new ObjectLayout(Open.class).flat);
        assertNull(new ObjectLayout(Open.class).taggedPrefixes);
        assertFalse(new ObjectLayout(Object.class).flat, "no fields: the general path writes the empty object");
    }

    @Test
    void aFlatClassIsWrittenThroughReflectionUntilItIsHotThenByItsComposedWriter() {
        ObjectLayout layout = new ObjectLayout(Request.class);
        for (int i = 0; i < ObjectLayout.COMPOSE_WRITER_AFTER; i++) {
            assertNull(layout.flatWriter(), "call " + i);
        }
        MethodHandle writer = layout.flatWriter();
        assertNotNull(writer);
        assertEquals(FlatWriter.TYPE, writer.type());
        assertSame(writer, layout.flatWriter(), "composed once");
        assertNull(new ObjectLayout(Open.class).flatWriter(), "not flat: never composed");
    }

    @Test
    void aFlatObjectIsTheBytesTheEncodingAlwaysGaveIt() {
        // Golden bytes, written out: an object of two fields sorted by name, each its name's length and bytes, then
        // the value with its tag.
        byte[] expected = {18, 0, 0, 0, 2,
            0, 0, 0, 3, 'd', 'a', 'y', 3, 0, 0, 0, 0, 1, 53, 41, 9,
            0, 0, 0, 5, 't', 'o', 'p', 'i', 'c', 8, 0, 0, 0, 4, 'r', 'u', 's', 't'};
        assertArrayEquals(expected, encode(new Request("rust", 20261129), Canonicalizers.NONE));
        // Golden digests taken from the encoder before it had a flat path: every special value of every kind.
        assertArrayEquals(expected, encodeHot(new Request("rust", 20261129)));
        assertEquals("3b8de1fefa3a92f914914e3dea72742c5ce87574073d851f253c4ea229be894d",
                sha256(encodeHot(new AllKinds())));
        assertEquals("a041d63423de1cc1eadf255276847c306f487382fe63029ff2b10bf5070f975a",
                sha256(encodeHot(List.of(new Request("rust", 20261129), new AllKinds()))));
    }

    @Test
    void theFlatPathAndTheGeneralPathWriteTheSameBytes() {
        AllKinds nulls = new AllKinds();
        nulls.text = null;
        nulls.mood = null;
        nulls.c = 'x';
        for (Object value : new Object[] {new AllKinds(), nulls, new Request("", 0), new Request(null, -1),
            new Point(3, 4), List.of(new Point(1, 2), new Request("a\u00e9", 2))}) {
            assertArrayEquals(encode(value, UNRELATED), encodeHot(value), value.toString());
        }
    }

    @Test
    void aCanonicaliserOfStringsStillSeesTheStringFieldsOfAFlatObject() {
        Canonicalizers upper = Canonicalizers.of(List.of(new KeyCanonicalizer<String>() {
            @Override
            public Class<String> type() {
                return String.class;
            }

            @Override
            public Object canonicalize(String value) {
                return value.toUpperCase(java.util.Locale.ROOT);
            }
        }));
        assertArrayEquals(encode(new Request("RUST", 1), Canonicalizers.NONE), encode(new Request("rust", 1), upper));
    }

    @Test
    void aFlatObjectAtTheDeepestLevelIsRefusedAsEveryObjectThereIs() {
        Object fits = new Request("rust", 1);
        for (int i = 0; i < 63; i++) {
            fits = List.of(fits);
        }
        Object tooDeep = List.of(fits);
        encode(fits, Canonicalizers.NONE);
        for (Canonicalizers canonicalizers : List.of(Canonicalizers.NONE, UNRELATED)) {
            UnencodableValueException e = assertThrows(UnencodableValueException.class,
                    () -> encode(tooDeep, canonicalizers));
            assertTrue(e.getMessage().contains("nested deeper"), e.getMessage());
        }
    }

    @Test
    void aFlatObjectSharedBetweenPlacesIsNoCycle() {
        Request shared = new Request("rust", 1);
        List<Object> twice = new ArrayList<>(List.of(shared, shared));
        assertArrayEquals(encode(twice, UNRELATED), encode(twice, Canonicalizers.NONE));
    }

    @Test
    void constantsAreWrittenWholeAtEveryLengthAndPositionWithNothingLeftAfterRelease() {
        for (int n = 0; n <= 20; n++) {
            byte[] bytes = new byte[n];
            Arrays.fill(bytes, (byte) (n + 1));
            ConstantBytes constant = new ConstantBytes(bytes);
            assertEquals(n, constant.length());
            for (int at : new int[] {0, 3, 250, 255}) { // the last ones leave too little room for the words
                CanonicalEncoder encoder = CanonicalEncoder.acquire();
                for (int k = 0; k < at; k++) {
                    encoder.writeByte((byte) 7);
                }
                encoder.writeConstant(constant);
                encoder.writeByte((byte) 9);
                byte[] written = encoder.toByteArray();
                assertEquals(at + n + 1, written.length);
                assertArrayEquals(bytes, Arrays.copyOfRange(written, at, at + n), "n " + n + " at " + at);
                assertEquals(9, written[at + n]);
                byte[] buffer = encoder.buffer(); // after any growth: the buffer the encoder keeps
                encoder.release();
                for (byte b : buffer) {
                    assertEquals(0, b, "released: n " + n + " at " + at);
                }
            }
        }
    }

    @Test
    void releaseZeroesEveryLengthAroundTheWordsItZeroesShortEncodingsWith() {
        for (int n = 1; n <= 80; n++) {
            CanonicalEncoder encoder = CanonicalEncoder.acquire();
            for (int k = 0; k < n; k++) {
                encoder.writeByte((byte) -1);
            }
            byte[] buffer = encoder.buffer();
            encoder.release();
            for (byte b : buffer) {
                assertEquals(0, b, "after " + n + " bytes");
            }
        }
    }

    @Test
    void nothingOfAFlatObjectIsLeftInTheEncoderAfterReleaseOnEitherPath() {
        Request secret = new Request("a secret topic", 42);
        for (int call = 0; call <= ObjectLayout.COMPOSE_WRITER_AFTER + 1; call++) { // cold, then through the writer
            CanonicalEncoder encoder = CanonicalEncoder.acquire();
            encoder.encode(secret);
            byte[] buffer = encoder.buffer();
            encoder.release();
            for (byte b : buffer) {
                assertEquals(0, b, "call " + call);
            }
            assertTrue(encoder.holdsNoValues(), "call " + call);
        }
        assertNotNull(TypeEntry.of(Request.class).layout().flatWriter(), "the last calls went through the writer");
    }

    @Test
    void theLoaderOfAFlatClassIsCollectedAfterItsWriterRanHot() throws Exception {
        ClassLoading.assertCollected(encodeHotAndDiscard(), "a loader whose flat class was encoded");
    }

    /** Encodes a {@link Request} of a loader of its own often enough for its writer to be compiled, then drops all. */
    private static WeakReference<ClassLoader> encodeHotAndDiscard() throws Exception {
        ClassLoader loader = ClassLoading.childFirst("own-copy", Request.class.getName()::equals);
        Class<?> type = Class.forName(Request.class.getName(), true, loader);
        assertNotSame(Request.class, type);
        Constructor<?> constructor = type.getDeclaredConstructor(String.class, int.class);
        constructor.setAccessible(true);
        Object value = constructor.newInstance("rust", 1);
        byte[] expected = encode(new Request("rust", 1), Canonicalizers.NONE);
        for (int i = 0; i < 2_000; i++) { // past composing its writer, and the calls after which the JDK compiles it
            assertArrayEquals(expected, encode(value, Canonicalizers.NONE));
        }
        assertTrue(TypeEntry.of(type).layout().flat);
        return new WeakReference<>(loader);
    }
}
