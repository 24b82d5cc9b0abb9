package dev.idem.core.internal.key;

import dev.idem.Normalize;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * SEMANTICS.md section 2 as properties (jqwik): random nested values encode to equal bytes exactly when they are
 * equal after normalisation (BigDecimal by value, map and set order ignored, collection classes ignored), so two
 * different calls never share a key and two equal calls always do. The value domain is small on purpose (short
 * strings over three characters, numbers from -2 to 2), so that random pairs are often equal or nearly so: the
 * cases where a collision would hide. Tries are bounded for CI (seconds); raise them in {@code @Property(tries)} for a longer run.
 */
class CanonicalEncodingPropertiesTest {
    private static final int MAX_DEPTH = 3;
    /**
     * The value domain has more edge cases than the bounded tries, so jqwik says at INFO that it stopped mixing them
     * in; that is expected here and only noise in the build. Held, so the level is not lost with a collected logger;
     * set when the class initialises, which is before jqwik generates the first value.
     */
    private static final Logger EDGE_CASE_NOTICE = quietened(
            Logger.getLogger("net.jqwik.engine.properties.RandomizedShrinkablesGenerator"));

    private static Logger quietened(Logger logger) {
        logger.setLevel(Level.WARNING);
        return logger;
    }

    @Property(tries = 250)
    void equalValuesEncodeAlikeAndDifferentOnesNever(@ForAll("pairs") Tuple.Tuple2<Object, Object> pair) {
        Object a = pair.get1();
        Object b = pair.get2();
        boolean equal = Objects.equals(normal(a), normal(b));
        assertEquals(equal, Arrays.equals(encode(a), encode(b)),
                () -> (equal ? "equal values encoded differently: " : "different values collided: ") + a + " / " + b);
    }

    @Property(tries = 200)
    void aValueReshapedWithoutChangingItEncodesTheSame(@ForAll("values") Object value) {
        assertArrayEquals(encode(value), encode(reshaped(value)), () -> value + " / " + reshaped(value));
    }

    @Property(tries = 200)
    void aValueWithOneLeafChangedNeverCollides(@ForAll("values") Object value) {
        Object changed = changedLeaf(value);
        if (!Objects.equals(normal(changed), normal(value))) {
            assertFalse(Arrays.equals(encode(value), encode(changed)), () -> value + " / " + changed);
        }
    }

    @Property(tries = 200)
    void splittingStringsDifferentlyNeverCollides(@ForAll("splits") Tuple.Tuple2<List<String>, List<String>> pair) {
        // ["a","b"] and ["ab"]: the same characters, split otherwise, are other values
        boolean equal = pair.get1().equals(pair.get2());
        assertEquals(equal, Arrays.equals(encode(pair.get1()), encode(pair.get2())), pair::toString);
    }

    @Property(tries = 200)
    void normalisedTextMatchesExactlyWhenItsNormalFormsMatch(@ForAll("texts") String a, @ForAll("texts") String b) {
        Normalize[] all = {Normalize.TRIM, Normalize.COLLAPSE_WHITESPACE, Normalize.LOWER_CASE};
        KeySource source = new KeySource(0, "text", PropertyPath.WHOLE, all);
        boolean equal = normalText(a).equals(normalText(b));
        assertEquals(equal, Arrays.equals(encode(source.valueIn(new Object[] {a}), source),
                        encode(source.valueIn(new Object[] {b}), source)),
                () -> "\"" + a + "\" / \"" + b + "\"");
    }

    @Provide
    Arbitrary<Object> values() {
        return value(MAX_DEPTH);
    }

    @Provide
    Arbitrary<Tuple.Tuple2<Object, Object>> pairs() {
        Arbitrary<Object> v = value(2);
        // Half independent pairs, half a value and a reshaped or leaf-changed copy of it.
        return Arbitraries.oneOf(
                Combinators.combine(v, v).as(Tuple::of),
                v.map(x -> Tuple.of(x, reshaped(x))),
                v.map(x -> Tuple.of(x, changedLeaf(x))));
    }

    @Provide
    Arbitrary<Tuple.Tuple2<List<String>, List<String>>> splits() {
        Arbitrary<List<String>> parts = Arbitraries.strings().withChars("ab").ofMaxLength(3).list().ofMaxSize(3);
        return Combinators.combine(parts, parts).as(Tuple::of)
                .filter(t -> String.join("", t.get1()).equals(String.join("", t.get2())));
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.strings().withChars("aAbB \t\n").ofMaxLength(6);
    }

    private static Arbitrary<Object> value(int depth) {
        Arbitrary<Object> leaf = Arbitraries.oneOf(
                Arbitraries.create(() -> null),
                Arbitraries.of(true, false).map(x -> x),
                Arbitraries.longs().between(-2, 2).map(x -> x),
                Arbitraries.strings().withChars("ab ").ofMaxLength(3).map(x -> x),
                Combinators.combine(Arbitraries.integers().between(-20, 20), Arbitraries.integers().between(0, 2))
                        .as((unscaled, scale) -> (Object) BigDecimal.valueOf(unscaled, scale)));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<Object> inner = value(depth - 1);
        Arbitrary<String> keys = Arbitraries.strings().withChars("ab").ofMaxLength(2);
        return Arbitraries.frequencyOf(
                Tuple.of(3, leaf),
                Tuple.of(1, inner.list().ofMaxSize(3).map(l -> (Object) new ArrayList<>(l))),
                Tuple.of(1, keys.set().ofMaxSize(3).map(s -> (Object) new HashSet<>(s))),
                Tuple.of(1, Arbitraries.maps(keys, inner).ofMaxSize(3).map(m -> (Object) new HashMap<>(m))),
                Tuple.of(1, inner.map(x -> (Object) Optional.ofNullable(x))));
    }

    /** The value as SEMANTICS.md compares it: BigDecimal by value, lists by order, sets and maps by content. */
    static Object normal(Object value) {
        if (value instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) value;
            return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
        }
        if (value instanceof List) {
            List<Object> out = new ArrayList<>();
            ((List<?>) value).forEach(x -> out.add(normal(x)));
            return out;
        }
        if (value instanceof Set) {
            Set<Object> out = new HashSet<>();
            ((Set<?>) value).forEach(x -> out.add(normal(x)));
            return out;
        }
        if (value instanceof Map) {
            Map<Object, Object> out = new HashMap<>();
            ((Map<?, ?>) value).forEach((k, v) -> out.put(normal(k), normal(v)));
            return out;
        }
        if (value instanceof Optional) {
            return Optional.ofNullable(normal(((Optional<?>) value).orElse(null)));
        }
        return value;
    }

    /** The same value in other clothes: other collection classes, other iteration orders, other decimal scales. */
    static Object reshaped(Object value) {
        if (value instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) value;
            return d.setScale(d.scale() + 2);
        }
        if (value instanceof List) {
            List<Object> out = new LinkedList<>();
            ((List<?>) value).forEach(x -> out.add(reshaped(x)));
            return out;
        }
        if (value instanceof Set) {
            List<Object> elements = new ArrayList<>((Set<?>) value);
            Collections.reverse(elements);
            Set<Object> out = new LinkedHashSet<>();
            elements.forEach(x -> out.add(reshaped(x)));
            return out;
        }
        if (value instanceof Map) {
            List<Map.Entry<?, ?>> entries = new ArrayList<>(((Map<?, ?>) value).entrySet());
            Collections.reverse(entries);
            Map<Object, Object> out = new LinkedHashMap<>();
            entries.forEach(e -> out.put(e.getKey(), reshaped(e.getValue())));
            return out;
        }
        if (value instanceof Optional) {
            return ((Optional<?>) value).map(CanonicalEncodingPropertiesTest::reshaped);
        }
        return value;
    }

    /** The value with its first leaf (depth first) replaced by another leaf of a neighbouring kind. */
    static Object changedLeaf(Object value) {
        if (value instanceof List && !((List<?>) value).isEmpty()) {
            List<Object> out = new ArrayList<>((List<?>) value);
            out.set(0, changedLeaf(out.get(0)));
            return out;
        }
        if (value instanceof Map && !((Map<?, ?>) value).isEmpty()) {
            Map<Object, Object> out = new HashMap<>((Map<?, ?>) value);
            Object first = out.keySet().stream().map(String.class::cast).sorted().findFirst().orElseThrow();
            out.put(first, changedLeaf(out.get(first)));
            return out;
        }
        if (value instanceof Collection || value instanceof Map) {
            return null; // an empty collection becomes null
        }
        if (value instanceof Optional) {
            return ((Optional<?>) value).isPresent() ? Optional.ofNullable(changedLeaf(((Optional<?>) value).get()))
                    : Optional.of("");
        }
        if (value == null) {
            return Optional.empty();
        }
        if (value instanceof Long) {
            return value.toString(); // 1 and "1" are other values
        }
        if (value instanceof String) {
            return ((String) value).isEmpty() ? List.of() : ((String) value).substring(1);
        }
        if (value instanceof BigDecimal) {
            return ((BigDecimal) value).add(BigDecimal.ONE.movePointLeft(3));
        }
        return !(Boolean) value;
    }

    private static String normalText(String text) {
        return text.trim().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    private static byte[] encode(Object value) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            encoder.encode(value);
            return encoder.toByteArray();
        } finally {
            encoder.release();
        }
    }

    private static byte[] encode(Object value, KeySource source) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            encoder.encode(value, source);
            return encoder.toByteArray();
        } finally {
            encoder.release();
        }
    }
}
