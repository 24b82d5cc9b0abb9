package dev.idem.core.internal.key;

import dev.idem.Normalize;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static dev.idem.core.internal.key.CanonicalDigests.encode;
import static dev.idem.core.internal.key.CanonicalDigests.sha256;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 2, property-style: generated values (a fixed seed per case, so a failure reproduces) and
 * the specific pairs the contract names.
 */
class CanonicalEncodingTest {

    enum Colour { RED, GREEN }

    record Customer(String id, String name, List<String> tags) {
    }

    static class Plain {
        private final String topic;
        private final int day;
        private transient Object cache = new Object();
        static int ignored = 42;

        Plain(String topic, int day) {
            this.topic = topic;
            this.day = day;
        }
    }

    static class Node {
        Node next;
    }

    /** A random value of the kinds users pass: scalars, strings, lists, maps and sets, nested. */
    static Object randomValue(Random r, int depth) {
        int kind = r.nextInt(depth > 3 ? 5 : 9);
        switch (kind) {
            case 0:
                return null;
            case 1:
                return (long) r.nextInt(7) - 3;
            case 2:
                return randomString(r);
            case 3:
                return r.nextBoolean();
            case 4:
                return Colour.values()[r.nextInt(2)];
            case 5: {
                List<Object> list = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    list.add(randomValue(r, depth + 1));
                }
                return list;
            }
            case 6: {
                Map<String, Object> map = new HashMap<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    map.put(randomString(r), randomValue(r, depth + 1));
                }
                return map;
            }
            case 7: {
                Set<Object> set = new HashSet<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    set.add(randomString(r));
                }
                return set;
            }
            default:
                return new Customer(randomString(r), randomString(r), List.of(randomString(r)));
        }
    }

    static String randomString(Random r) {
        String alphabet = "ab c\u00e9\u4e2d\ud83d\ude00";
        StringBuilder sb = new StringBuilder();
        for (int i = r.nextInt(4); i > 0; i--) {
            int at = r.nextInt(alphabet.length() - 1);
            if (Character.isHighSurrogate(alphabet.charAt(at))) {
                sb.append(alphabet, at, at + 2);
            } else if (!Character.isLowSurrogate(alphabet.charAt(at))) {
                sb.append(alphabet.charAt(at));
            }
        }
        return sb.toString();
    }

    /** The same value with every map and set rebuilt in another iteration order. */
    static Object reordered(Object value) {
        if (value instanceof Map) {
            List<Map.Entry<?, ?>> entries = new ArrayList<>(((Map<?, ?>) value).entrySet());
            Collections.reverse(entries);
            Map<Object, Object> copy = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : entries) {
                copy.put(e.getKey(), reordered(e.getValue()));
            }
            return copy;
        }
        if (value instanceof Set) {
            List<Object> elements = new ArrayList<>((Set<?>) value);
            Collections.reverse(elements);
            return new LinkedHashSet<>(elements);
        }
        if (value instanceof List) {
            List<Object> copy = new ArrayList<>();
            for (Object o : (List<?>) value) {
                copy.add(reordered(o));
            }
            return copy;
        }
        return value;
    }

    /**
     * The seeds of the generated cases, run as one test each (not one test per seed): a mutation run then pays the
     * test's start once, not three hundred times, and a failure still names its seed.
     */
    static long[] seeds() {
        return LongStream.range(1000, 1300).toArray();
    }

    /**
     * A random map of two to five entries whose values are random too: every case holds at least one map whose
     * iteration order {@link #reordered} really changes, so no case compares a value with itself.
     */
    static Map<String, Object> randomMap(Random r) {
        Map<String, Object> map = new HashMap<>();
        int size = 2 + r.nextInt(4);
        for (int i = 0; map.size() < size; i++) {
            map.put(randomString(r) + i, i % 2 == 0 ? randomValue(r, 1) : randomSet(r));
        }
        return map;
    }

    static Set<Object> randomSet(Random r) {
        Set<Object> set = new HashSet<>();
        int size = 2 + r.nextInt(3);
        for (int i = 0; set.size() < size; i++) {
            set.add(randomString(r) + i);
        }
        return set;
    }

    @Test
    void mapAndSetOrderNeverChangesTheEncoding() {
        for (long seed : seeds()) {
            Map<String, Object> value = randomMap(new Random(seed));
            Object copy = reordered(value);
            // The premise of the case: an equal value whose maps and sets iterate in another order.
            assertEquals(value, copy, () -> "seed " + seed);
            assertNotEquals(List.copyOf(value.keySet()), List.copyOf(((Map<?, ?>) copy).keySet()),
                    () -> "seed " + seed + ": the copy must iterate in another order: " + value);
            assertArrayEquals(encode(value), encode(copy), () -> "seed " + seed + ": value " + value);
        }
    }

    @Test
    void unequalValuesEncodeDifferently() {
        for (long seed : seeds()) {
            Random r = new Random(seed);
            Object a = randomValue(r, 0);
            Object b = randomValue(r, 0);
            // List.of(x) and new ArrayList(x) are equal, as are the records, maps and sets generated here.
            assertEquals(java.util.Objects.equals(a, b), Arrays.equals(encode(a), encode(b)),
                    () -> "seed " + seed + ": " + a + " vs " + b);
            Object nested = List.of(a == null ? "null" : a, List.of(b == null ? "null" : b));
            Object flattened = List.of(a == null ? "null" : a, b == null ? "null" : b);
            assertFalse(Arrays.equals(encode(nested), encode(flattened)),
                    () -> "seed " + seed + ": nesting is part of the encoding");
        }
    }

    @Test
    void theEncodingIsStableAcrossRunsAndMachines() {
        // A golden value: it changes only if the encoding does, which would change every stored key.
        Object value = List.of("prompt", 42L, new BigDecimal("1.50"), Colour.RED, LocalDate.of(2026, 3, 1),
                Map.of("b", 2, "a", 1), Set.of("y", "x"), Optional.of(UUID.fromString(
                        "123e4567-e89b-12d3-a456-426614174000")), new Customer("c-1", "Ada", List.of("vip")));
        assertEquals("5e732e61b6a97f493d1f7b7e0ace7962eb2957fd697b5474483d28d75e48f1cb", sha256(value));
    }

    @Test
    void theFormatIsTagThenLengthThenBytes() {
        assertArrayEquals(new byte[] {8, 0, 0, 0, 3, 'a', (byte) 0xC3, (byte) 0xA9}, encode("a\u00e9"), "UTF-8 string");
        assertArrayEquals(new byte[] {3, 0, 0, 0, 0, 0, 0, 1, 0x2C}, encode(300), "integer as 8 bytes");
        assertArrayEquals(new byte[] {13, 0, 0, 0, 2, 0, 2}, encode(Arrays.asList(null, true)), "list");
        assertArrayEquals(new byte[] {9, 0, 0, 0, 3, 'R', 'E', 'D'}, encode(Colour.RED), "enum by name");
        assertArrayEquals(new byte[] {14, 0, 0, 0, 2, 8, 0, 0, 0, 1, 'a', 8, 0, 0, 0, 1, 'b'},
                encode(new LinkedHashSet<>(List.of("b", "a"))), "set sorted by element encoding");
    }

    @Test
    void typesAreTagged() {
        assertFalse(Arrays.equals(encode(1), encode("1")), "1 vs \"1\"");
        assertFalse(Arrays.equals(encode(true), encode("true")));
        assertFalse(Arrays.equals(encode(null), encode("null")));
        assertFalse(Arrays.equals(encode('a'), encode("a")));
        assertFalse(Arrays.equals(encode(Optional.empty()), encode(null)));
        assertFalse(Arrays.equals(encode(List.of()), encode(Set.of())));
        assertFalse(Arrays.equals(encode(Colour.RED), encode("RED")));
        assertFalse(Arrays.equals(encode(1), encode(1.0)));
    }

    @Test
    void listsAreLengthPrefixedSoConcatenationsDiffer() {
        assertFalse(Arrays.equals(encode(List.of("a", "b")), encode(List.of("ab"))));
        assertFalse(Arrays.equals(encode(List.of(List.of("a"), "b")), encode(List.of("a", List.of("b")))));
        assertFalse(Arrays.equals(encode(List.of("", "a")), encode(List.of("a", ""))));
        assertFalse(Arrays.equals(encode(Map.of("a", "bc")), encode(Map.of("ab", "c"))));
    }

    @Test
    void numbersAreEncodedByValue() {
        assertArrayEquals(encode(1), encode(1L));
        assertArrayEquals(encode((short) 1), encode(BigInteger.ONE));
        assertArrayEquals(encode(new BigDecimal("1.0")), encode(new BigDecimal("1.00")));
        assertArrayEquals(encode(new BigDecimal("0.000")), encode(BigDecimal.ZERO));
        assertArrayEquals(encode(0.0), encode(-0.0));
        assertArrayEquals(encode(1.5f), encode(1.5d));
        assertFalse(Arrays.equals(encode(new BigDecimal("1.1")), encode(new BigDecimal("1.01"))));
        assertFalse(Arrays.equals(encode(BigInteger.TWO.pow(80)), encode(BigInteger.TWO.pow(81))));
    }

    @Test
    void arraysEncodeLikeListsOfTheirElements() {
        assertArrayEquals(encode(List.of(1, 2, 3)), encode(new int[] {1, 2, 3}));
        assertArrayEquals(encode(List.of("a", "b")), encode(new String[] {"a", "b"}));
        assertFalse(Arrays.equals(encode(new byte[] {1, 2}), encode(new int[] {1, 2})), "byte[] is binary data");
    }

    @Test
    void timeIsEncodedInIsoFormAndInstantsInUtc() {
        Instant instant = Instant.parse("2026-03-01T08:00:00Z");
        assertArrayEquals(encode(instant), encode(OffsetDateTime.of(2026, 3, 1, 17, 0, 0, 0, ZoneOffset.ofHours(9))
                .toInstant()));
        assertFalse(Arrays.equals(encode(LocalDate.of(2026, 3, 1)), encode("2026-03-01")));
    }

    @Test
    void plainObjectsAreEncodedByTheirFieldsSkippingTransientAndStatic() {
        Plain a = new Plain("rust", 1);
        Plain b = new Plain("rust", 1);
        b.cache = "something else entirely";
        assertArrayEquals(encode(a), encode(b));
        assertFalse(Arrays.equals(encode(a), encode(new Plain("rust", 2))));
    }

    @Test
    void recordsAreEncodedByComponentsSortedByName() {
        assertArrayEquals(encode(new Customer("1", "Ada", List.of())), encode(new Customer("1", "Ada", List.of())));
        assertFalse(Arrays.equals(encode(new Customer("1", "Ada", List.of())),
                encode(new Customer("Ada", "1", List.of()))));
    }

    @Test
    void aCycleIsAnErrorNotAStackOverflow() {
        Node a = new Node();
        a.next = new Node();
        a.next.next = a;
        UnencodableValueException e = assertThrows(UnencodableValueException.class, () -> encode(a));
        assertTrue(e.getMessage().contains("cycle"), e.getMessage());

        List<Object> selfContaining = new ArrayList<>();
        selfContaining.add(selfContaining);
        assertThrows(UnencodableValueException.class, () -> encode(selfContaining));
    }

    @Test
    void sharedButAcyclicValuesAreFine() {
        List<String> shared = List.of("x");
        assertArrayEquals(encode(List.of(List.of("x"), List.of("x"))), encode(List.of(shared, shared)));
    }

    @Test
    void valuesWithoutACanonicalFormAreRefused() {
        assertThrows(UnencodableValueException.class, () -> encode(Thread.currentThread()));
        assertThrows(UnencodableValueException.class, () -> encode(Stream.of(1)));
        Runnable lambda = () -> { };
        assertThrows(UnencodableValueException.class, () -> encode(lambda));
        assertThrows(UnencodableValueException.class, () -> encode(new Object()));
    }

    @Test
    void normalisationAppliesInTheGivenOrder() {
        KeySource source = new KeySource(0, "prompt", PropertyPath.WHOLE,
                new Normalize[] {Normalize.TRIM, Normalize.COLLAPSE_WHITESPACE, Normalize.LOWER_CASE});
        assertEquals("write about rust", source.valueIn(new Object[] {"  Write   about\tRUST \n"}));
        KeySource none = new KeySource(0, "prompt", PropertyPath.WHOLE, new Normalize[0]);
        assertEquals(" A ", none.valueIn(new Object[] {" A "}));
        KeySource lower = new KeySource(0, "prompt", PropertyPath.WHOLE, new Normalize[] {Normalize.LOWER_CASE});
        assertEquals("title", lower.valueIn(new Object[] {"TITLE"}), "locale-independent (no dotless i)");
    }

    @Test
    void propertyPathsReadRecordsGettersFieldsAndMaps() {
        record Order(Customer customer, Map<String, String> meta) {
        }
        Order order = new Order(new Customer("c-9", "Ada", List.of()), new TreeMap<>(Map.of("site", "eu")));
        assertEquals("c-9", PropertyPath.resolve(Order.class, "customer.id").read(order));
        assertEquals("eu", PropertyPath.resolve(Order.class, "meta.site").read(order));
        assertEquals(null, PropertyPath.resolve(Order.class, "customer.id").read(new Order(null, Map.of())));
        assertThrows(IllegalArgumentException.class, () -> PropertyPath.resolve(Order.class, "customer.nope"));
    }
}
