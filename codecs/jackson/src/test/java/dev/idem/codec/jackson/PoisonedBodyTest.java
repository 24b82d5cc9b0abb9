package dev.idem.codec.jackson;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.idem.codec.ResultCodec;
import dev.idem.codec.jackson.Codecs.TypeOf;
import dev.idem.codec.jackson.Model.Envelope;
import dev.idem.codec.jackson.Model.Invoice;
import dev.idem.codec.jackson.Model.Line;
import dev.idem.codec.jackson.Model.Order;
import dev.idem.codec.jackson.Model.Topic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.idem.codec.jackson.Codecs.codec;
import static dev.idem.codec.jackson.Codecs.decode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Stored bytes are data, not code: poisoned or foreign bodies decode into the declared type or fail with a typed
 * exception, at once, and never make a class outside the declared type run.
 */
class PoisonedBodyTest {
    private static final String[] NAMING_A_CLASS = {
            "{\"@class\":\"" + Tripwire.NAME + "\",\"x\":\"1\",\"command\":[\"touch\",\"/tmp/idem-pwned\"]}",
            "[\"" + Tripwire.NAME + "\",{\"x\":\"1\"}]",
            "{\"" + Tripwire.NAME + "\":{\"x\":\"1\"}}",
            "{\"@type\":\"" + Tripwire.NAME + "\",\"@c\":\"" + Tripwire.NAME + "\"}",
            "{\"@class\":\"java.lang.ProcessBuilder\",\"command\":[\"touch\",\"/tmp/idem-pwned\"]}",
            "[\"java.lang.ProcessBuilder\",{\"command\":[\"touch\",\"/tmp/idem-pwned\"]}]",
    };

    @AfterEach
    void nothingRan() {
        assertEquals(List.of(), Tripwire.Log.EVENTS, "a class named by stored bytes ran");
    }

    @Test
    void jsonNamingAClassDecodesAsDataIntoObjectParts() throws Exception {
        for (String body : NAMING_A_CLASS) {
            Object root = decode(codec(Object.class), body);
            assertTrue(root instanceof LinkedHashMap || root instanceof ArrayList, body);

            Envelope envelope = (Envelope) decode(codec(Envelope.class), "{\"kind\":\"k\",\"payload\":" + body + "}");
            assertTrue(envelope.payload() instanceof LinkedHashMap || envelope.payload() instanceof ArrayList, body);

            Object list = decode(codec(new TypeOf<List<Object>>() {}), "[" + body + "]");
            Object element = ((List<?>) list).get(0);
            assertTrue(element instanceof LinkedHashMap || element instanceof ArrayList, body);
        }
        Map<?, ?> map = (Map<?, ?>) decode(codec(Object.class), NAMING_A_CLASS[0]);
        assertEquals(Tripwire.NAME, map.get("@class"));
    }

    @Test
    void jsonNamingAClassDecodesIntoTheDeclaredTypeOrFails() throws Exception {
        for (String body : NAMING_A_CLASS) {
            for (Type declared : List.of(Topic.class, Invoice.class, Order.class, String.class,
                    new TypeOf<List<Topic>>() {}.type, new TypeOf<Map<String, Topic>>() {}.type)) {
                Object value;
                try {
                    value = decode(codec(declared), body);
                } catch (JacksonException refused) {
                    continue;
                }
                Class<?> raw = declared instanceof Class<?> c ? c : (Class<?>) ((java.lang.reflect.ParameterizedType) declared).getRawType();
                assertTrue(value == null || raw.isInstance(value), () -> value.getClass() + " for " + declared);
                if (value instanceof List<?> list) {
                    list.forEach(e -> assertInstanceOf(Topic.class, e));
                } else if (value instanceof Map<?, ?> m) {
                    m.values().forEach(e -> assertInstanceOf(Topic.class, e));
                }
            }
        }
    }

    /** A type id Jackson would honour, past the planning check: the mapper itself still denies it. */
    record Smuggled(@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object payload) {
    }

    @Test
    void theMapperDeniesTypeIdsEvenWhereTheCheckWasBypassed() {
        var reader = StoredJsonMapper.create(getClass().getClassLoader()).readerFor(Smuggled.class);
        for (String payload : List.of("{\"@class\":\"" + Tripwire.NAME + "\"}",
                "{\"@class\":\"java.lang.ProcessBuilder\",\"command\":[\"touch\",\"/tmp/idem-pwned\"]}")) {
            DatabindException e = assertThrows(DatabindException.class,
                    () -> reader.readValue("{\"payload\":" + payload + "}"));
            assertTrue(e.getMessage().contains("denied"), e.getMessage());
        }
    }

    @Test
    void truncatedBodiesFail() throws Exception {
        for (var declared : List.<Map.Entry<Type, Object>>of(Map.entry(Order.class, RoundTripTest.ORDER),
                Map.entry(new TypeOf<List<Topic>>() {}.type, List.of(new Topic("a", List.of("b")))),
                Map.entry(Long.class, 1234567890L), Map.entry(BigDecimal.class, new BigDecimal("19.90")),
                Map.entry(String.class, "text"))) {
            ResultCodec codec = codec(declared.getKey());
            byte[] body = codec.encode(declared.getValue());
            for (int length = 0; length < body.length; length++) {
                byte[] truncated = Arrays.copyOf(body, length);
                // Every body ends with a newline, so any cut is seen, even one that leaves a valid number.
                assertThrows(EOFException.class, () -> codec.decode(truncated, 1), () -> show(truncated));
            }
        }
        // What is left after a cut fails as JSON too, where it can (not for a number), newline or not.
        ResultCodec codec = codec(Order.class);
        byte[] body = codec.encode(RoundTripTest.ORDER);
        for (int length = 0; length < body.length - 1; length++) {
            byte[] cut = Arrays.copyOf(body, length + 1);
            cut[length] = '\n';
            assertThrows(JacksonException.class, () -> codec.decode(cut, 1), () -> show(cut));
        }
    }

    private static String show(byte[] body) {
        return new String(body, StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "{}x", "{} {}", "nul", "NULL", "{\"id\":1,}", "{'id':1}", "{\"id\":01}"})
    void malformedBodiesFail(String body) {
        assertThrows(JacksonException.class, () -> decode(codec(Order.class), body));
    }

    @Test
    void foreignBytesFail() throws Exception {
        ByteArrayOutputStream javaSerialized = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(javaSerialized)) {
            out.writeObject(new ArrayList<>(List.of("x")));
        }
        List<byte[]> foreign = List.of(javaSerialized.toByteArray(), new byte[] {(byte) 0xfe, (byte) 0xff, 0, '{'},
                new byte[] {(byte) 0xc3, (byte) 0x28}, "{\"name\":\"\u00e9".getBytes(StandardCharsets.ISO_8859_1),
                new byte[1024]);
        for (byte[] body : foreign) {
            byte[] ended = Arrays.copyOf(body, body.length + 1);
            ended[body.length] = '\n';
            for (ResultCodec codec : List.of(codec(Order.class), codec(Object.class), codec(String.class))) {
                assertThrows(EOFException.class, () -> codec.decode(body, 1));
                assertThrows(JacksonException.class, () -> codec.decode(ended, 1));
            }
        }
    }

    @Test
    void bodiesOfAnotherShapeFailWithATypedError() {
        assertThrows(DatabindException.class, () -> decode(codec(Order.class), "\"an order\""));
        assertThrows(DatabindException.class, () -> decode(codec(Order.class), "[1,2]"));
        assertThrows(DatabindException.class, () -> decode(codec(new TypeOf<List<Topic>>() {}), "{\"name\":\"t\"}"));
        // A missing record component is an error, not a null the method never returned.
        assertThrows(DatabindException.class, () -> decode(codec(Topic.class), "{\"name\":\"t\"}"));
        // A null for a primitive, an enum by number or by an unknown name.
        assertThrows(DatabindException.class, () -> decode(codec(Line.class),
                "{\"sku\":\"a\",\"quantity\":null,\"price\":1}"));
        assertThrows(DatabindException.class, () -> decode(codec(Model.Status.class), "1"));
        assertThrows(DatabindException.class, () -> decode(codec(Model.Status.class), "\"Closed (final)\""));
    }

    @Test
    void unknownPropertiesAreIgnored() throws Exception {
        assertEquals(new Topic("t", List.of()), decode(codec(Topic.class),
                "{\"name\":\"t\",\"tags\":[],\"removedLater\":{\"deep\":[1,2,3]}}"));
    }

    @Test
    void wrongFormatVersionFails() {
        ResultCodec codec = codec(String.class);
        assertThrows(IOException.class, () -> codec.decode("\"x\"\n".getBytes(StandardCharsets.UTF_8), 2));
    }

    @Test
    void nestingBombsFailAtOnce() {
        for (String open : List.of("[", "{\"a\":")) {
            String bomb = open.repeat(1_000_000);
            for (Type declared : List.of(Object.class, Envelope.class, new TypeOf<List<List<Object>>>() {}.type)) {
                ResultCodec codec = codec(declared);
                String body = declared == Envelope.class ? "{\"payload\":" + bomb : bomb;
                assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                    JacksonException e = assertThrows(JacksonException.class, () -> decode(codec, body));
                    assertTrue(e instanceof StreamConstraintsException || e instanceof DatabindException, e::toString);
                });
            }
        }
        // Just within the limit is data.
        String deep = "[".repeat(StoredJsonMapper.MAX_NESTING_DEPTH) + "]".repeat(StoredJsonMapper.MAX_NESTING_DEPTH);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> decode(codec(Object.class), deep));
    }

    @Test
    void hugeNumbersAndStringsFailAtOnceOrStayCheap() {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            String digits = "9".repeat(1_000_000);
            assertThrows(StreamConstraintsException.class, () -> decode(codec(BigInteger.class), digits));
            assertThrows(StreamConstraintsException.class, () -> decode(codec(Object.class), digits));
            assertThrows(StreamConstraintsException.class, () -> decode(codec(BigDecimal.class), "0." + digits));
            // A short number with a huge exponent: turning it into a BigInteger would take forever.
            assertThrows(JacksonException.class, () -> decode(codec(BigInteger.class), "1e1000000000"));
            assertThrows(JacksonException.class, () -> decode(codec(Long.class), "1e1000000000"));
            // An unterminated string of 20 MB, and one that never ends in a record.
            String open = "\"" + "a".repeat(20 << 20);
            assertThrows(StreamReadException.class, () -> decode(codec(String.class), open));
            assertThrows(StreamReadException.class, () -> decode(codec(Topic.class), "{\"name\":" + open));
        });
    }

    /**
     * Random damage to a valid body: each decode returns an Order or throws JacksonException (EOFException where the
     * final newline was damaged), nothing else.
     */
    @Test
    void damagedBodiesDecodeIntoTheDeclaredTypeOrFailTyped() throws Exception {
        ResultCodec codec = codec(Order.class);
        byte[] body = codec.encode(RoundTripTest.ORDER);
        Random random = new Random(20261130);
        byte[] alphabet = "{}[]\":,0123456789.eE+-truefalsnl\\ @class".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 5000; i++) {
            byte[] damaged = damage(body, random, alphabet);
            try {
                Object value = codec.decode(damaged, 1);
                if (value != null) {
                    assertInstanceOf(Order.class, value);
                }
            } catch (JacksonException | EOFException expected) {
                // typed
            } catch (Throwable other) {
                fail("decoding " + new String(damaged, StandardCharsets.UTF_8) + " threw " + other, other);
            }
        }
    }

    private static byte[] damage(byte[] body, Random random, byte[] alphabet) {
        byte[] copy = body.clone();
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits; e++) {
            int at = random.nextInt(copy.length);
            switch (random.nextInt(3)) {
                case 0 -> copy[at] = random.nextBoolean() ? alphabet[random.nextInt(alphabet.length)]
                        : (byte) random.nextInt(256);
                case 1 -> {
                    byte[] shorter = new byte[copy.length - 1];
                    System.arraycopy(copy, 0, shorter, 0, at);
                    System.arraycopy(copy, at + 1, shorter, at, copy.length - at - 1);
                    copy = shorter.length == 0 ? copy : shorter;
                }
                default -> {
                    byte[] longer = new byte[copy.length + 1];
                    System.arraycopy(copy, 0, longer, 0, at);
                    longer[at] = alphabet[random.nextInt(alphabet.length)];
                    System.arraycopy(copy, at, longer, at + 1, copy.length - at);
                    copy = longer;
                }
            }
        }
        return copy;
    }
}
