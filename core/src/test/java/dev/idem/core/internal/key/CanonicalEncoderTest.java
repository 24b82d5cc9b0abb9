package dev.idem.core.internal.key;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;

import static dev.idem.core.internal.key.CanonicalDigests.encode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The canonical encoding's bytes, checked against an independent statement of the format (SEMANTICS.md section 2):
 * text is UTF-8 as the JDK writes it, arrays and primitive forms encode as their boxed lists, records' primitive
 * fields as their boxed values, and buffers grow at any boundary.
 */
class CanonicalEncoderTest {

    /** The format's string form, written independently: tag, big-endian length, the JDK's UTF-8 bytes. */
    private static byte[] expectedString(String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(CanonicalEncoder.STRING);
        out.writeInt(utf8.length);
        out.write(utf8);
        return bytes.toByteArray();
    }

    @Test
    void textIsTheJdksUtf8ForEveryKindOfCharacter() throws IOException {
        Random random = new Random(7);
        List<String> samples = new ArrayList<>(List.of("", "a", "\u007f", "\u0080", "\u07ff", "\u0800", "é", "日本語",
                "\uffff", "😀 emoji", "\ud83d", "x\udc00y", "mixed ascii, ü, 中, 𝄞"));
        for (int i = 0; i < 500; i++) {
            char[] chars = new char[random.nextInt(12)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = (char) random.nextInt(Character.MAX_VALUE + 1); // lone surrogates included
            }
            samples.add(new String(chars));
        }
        for (String s : samples) {
            assertArrayEquals(expectedString(s), encode(s), () -> "UTF-8 of " + s.codePoints().boxed().toList());
        }
    }

    @Test
    void charsAreTwoBigEndianBytes() {
        for (char c : new char[] {'a', 'é', '\u1234', '\uffff', '\u0000'}) {
            assertArrayEquals(new byte[] {CanonicalEncoder.CHAR, (byte) (c >>> 8), (byte) c}, encode(c));
        }
    }

    @Test
    void primitiveArraysEncodeAsTheListOfTheirBoxedValues() {
        assertArrayEquals(encode(List.of(1, -2, 3)), encode(new int[] {1, -2, 3}));
        assertArrayEquals(encode(List.of(1L, Long.MIN_VALUE)), encode(new long[] {1L, Long.MIN_VALUE}));
        assertArrayEquals(encode(List.of((short) 4, (short) -5)), encode(new short[] {4, -5}));
        assertArrayEquals(encode(List.of(1.5, -0.25)), encode(new double[] {1.5, -0.25}));
        assertArrayEquals(encode(List.of(1.5f, 2.5f)), encode(new float[] {1.5f, 2.5f}));
        assertArrayEquals(encode(List.of(true, false)), encode(new boolean[] {true, false}));
        assertArrayEquals(encode(List.of('x', 'ü')), encode(new char[] {'x', 'ü'}));
        assertFalse(java.util.Arrays.equals(encode(new int[] {1, 2}), encode(new int[] {2, 1})), "order counts");
        assertFalse(java.util.Arrays.equals(encode(new boolean[] {true}), encode(new boolean[] {false})));
        assertFalse(java.util.Arrays.equals(encode(new double[] {1.0}), encode(new double[] {2.0})));
        assertFalse(java.util.Arrays.equals(encode(new char[] {'a'}), encode(new char[] {'b'})));
    }

    @Test
    void primitiveOptionalsEncodeAsTheOptionalOfTheirBoxedValue() {
        assertArrayEquals(encode(Optional.of(5)), encode(OptionalInt.of(5)));
        assertArrayEquals(encode(Optional.of(5L)), encode(OptionalLong.of(5)));
        assertArrayEquals(encode(Optional.of(2.5)), encode(OptionalDouble.of(2.5)));
        assertArrayEquals(encode(Optional.empty()), encode(OptionalInt.empty()));
        assertArrayEquals(encode(Optional.empty()), encode(OptionalLong.empty()));
        assertArrayEquals(encode(Optional.empty()), encode(OptionalDouble.empty()));
        assertFalse(java.util.Arrays.equals(encode(OptionalInt.of(5)), encode(OptionalInt.of(6))));
        assertFalse(java.util.Arrays.equals(encode(OptionalDouble.of(5)), encode(OptionalDouble.of(6))));
    }

    record Primitives(int i, long l, boolean z, double d, float f, short s, byte b, char c) {
    }

    record Boxed(Integer i, Long l, Boolean z, Double d, Float f, Short s, Byte b, Character c) {
    }

    @Test
    void primitiveFieldsEncodeAsTheirBoxedValues() {
        Primitives p = new Primitives(1, 2L, true, 3.5, 4.5f, (short) 6, (byte) 7, 'q');
        assertArrayEquals(encode(new Boxed(1, 2L, true, 3.5, 4.5f, (short) 6, (byte) 7, 'q')), encode(p));

        List<Primitives> oneFieldChanged = List.of(
                new Primitives(9, 2L, true, 3.5, 4.5f, (short) 6, (byte) 7, 'q'),
                new Primitives(1, 9L, true, 3.5, 4.5f, (short) 6, (byte) 7, 'q'),
                new Primitives(1, 2L, false, 3.5, 4.5f, (short) 6, (byte) 7, 'q'),
                new Primitives(1, 2L, true, 9.5, 4.5f, (short) 6, (byte) 7, 'q'),
                new Primitives(1, 2L, true, 3.5, 9.5f, (short) 6, (byte) 7, 'q'),
                new Primitives(1, 2L, true, 3.5, 4.5f, (short) 9, (byte) 7, 'q'),
                new Primitives(1, 2L, true, 3.5, 4.5f, (short) 6, (byte) 9, 'q'),
                new Primitives(1, 2L, true, 3.5, 4.5f, (short) 6, (byte) 7, 'r'));
        for (Primitives other : oneFieldChanged) {
            assertFalse(java.util.Arrays.equals(encode(p), encode(other)), other::toString);
        }
    }

    @Test
    void bigIntegersThatFitALongEncodeAsThatLongAndLargerOnesByMagnitude() {
        assertArrayEquals(encode(Long.MAX_VALUE), encode(BigInteger.valueOf(Long.MAX_VALUE)));
        assertArrayEquals(encode(Long.MIN_VALUE), encode(BigInteger.valueOf(Long.MIN_VALUE)));
        BigInteger twoTo63 = BigInteger.ONE.shiftLeft(63);
        byte[] big = encode(twoTo63);
        assertEquals(CanonicalEncoder.BIG_INTEGER, big[0]);
        assertFalse(java.util.Arrays.equals(encode(Long.MIN_VALUE), big), "2^63 is not Long.MIN_VALUE");
        assertFalse(java.util.Arrays.equals(big, encode(twoTo63.add(BigInteger.ONE))));
        byte[] magnitude = twoTo63.toByteArray();
        assertEquals(1 + 4 + magnitude.length, big.length);
    }

    @Test
    void scalarsEncodeTheirTypeAndStableTextForm() {
        assertFalse(java.util.Arrays.equals(encode(Locale.forLanguageTag("en-GB")), encode(Locale.forLanguageTag("en-US"))));
        assertArrayEquals(encode(Locale.forLanguageTag("en-GB")), encode(new Locale("en", "GB")));
        assertFalse(java.util.Arrays.equals(encode(URI.create("https://a")), encode("https://a")),
                "a URI is not its text");
    }

    @Test
    void nestingGrowsToTheLimitAndIsRefusedBeyondIt() {
        assertTrue(encode(nested(63)).length > 0, "64 levels are encodable");
        UnencodableValueException e = assertThrows(UnencodableValueException.class, () -> encode(nested(64)));
        assertTrue(e.getMessage().contains("deeper than 64"), e.getMessage());
    }

    private static List<Object> nested(int levels) {
        List<Object> value = new ArrayList<>();
        for (int i = 0; i < levels; i++) {
            List<Object> outer = new ArrayList<>();
            outer.add(value);
            value = outer;
        }
        return value;
    }

    @Test
    void theBufferGrowsAtEveryBoundary() {
        // Many small writes of each width cross the buffer's capacity at every offset.
        for (int n : new int[] {1, 27, 28, 29, 30, 31, 32, 100, 1000, 5000}) {
            List<Long> longs = new ArrayList<>();
            List<Character> chars = new ArrayList<>();
            List<List<Object>> empties = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                longs.add((long) i);
                chars.add((char) ('a' + i % 26));
                empties.add(List.of());
            }
            assertEquals(1 + 4 + 9 * n, encode(longs).length, "longs " + n);
            assertEquals(1 + 4 + 3 * n, encode(chars).length, "chars " + n);
            assertEquals(1 + 4 + 5 * n, encode(empties).length, "lists " + n);
        }
    }

    @Test
    void anAnonymousClassIsACallbackNotDataSoItHasNoCanonicalForm() {
        java.util.function.Supplier<String> a = new java.util.function.Supplier<>() {
            @Override
            public String get() {
                return "a";
            }
        };
        UnencodableValueException e = assertThrows(UnencodableValueException.class, () -> encode(a));
        assertTrue(e.getMessage().contains("no canonical form"), e.getMessage());
    }
}
