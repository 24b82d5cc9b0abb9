package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.jackson.Codecs.TypeOf;
import dev.idem.codec.jackson.Model.Address;
import dev.idem.codec.jackson.Model.Customer;
import dev.idem.codec.jackson.Model.Envelope;
import dev.idem.codec.jackson.Model.Invoice;
import dev.idem.codec.jackson.Model.Line;
import dev.idem.codec.jackson.Model.Order;
import dev.idem.codec.jackson.Model.Point;
import dev.idem.codec.jackson.Model.Schedule;
import dev.idem.codec.jackson.Model.Status;
import dev.idem.codec.jackson.Model.Topic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static dev.idem.codec.jackson.Codecs.codec;
import static dev.idem.codec.jackson.Codecs.json;
import static dev.idem.codec.jackson.Codecs.roundTrip;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Every replay is equal to what the method returned: provider, forType, encode, decode, for each kind of type. */
class RoundTripTest {
    static final Order ORDER = new Order(42, new BigDecimal("19.90"), Status.CLOSED,
            Instant.parse("2026-03-01T10:15:30.123456789Z"),
            new Customer("Ada", new Address("Paris", "75001")), Optional.of("leave at the door"),
            List.of(new Line("A-1", 2, new BigDecimal("4.95")), new Line("B-2", 1, new BigDecimal("10.00"))));

    static Stream<Arguments> values() {
        return Stream.of(
                // Records, nested, with List and Optional components.
                arguments(new TypeOf<Topic>() {}, new Topic("jvm", List.of("java", "jit"))),
                arguments(new TypeOf<Order>() {}, ORDER),
                arguments(new TypeOf<Order>() {}, new Order(1, BigDecimal.ZERO, Status.OPEN, Instant.EPOCH, null,
                        Optional.empty(), List.of())),
                // Nested generics.
                arguments(new TypeOf<List<Topic>>() {}, List.of(new Topic("a", List.of()), new Topic("b", List.of("x")))),
                arguments(new TypeOf<Map<String, Order>>() {}, Map.of("o-42", ORDER)),
                arguments(new TypeOf<Map<String, List<Map<String, Topic>>>>() {},
                        Map.of("k", List.of(Map.of("t", new Topic("t", List.of("u")))))),
                arguments(new TypeOf<Schedule>() {}, new Schedule(LocalDate.of(2026, 2, 28),
                        Map.of("morning", List.of(new Topic("x", List.of("y")))))),
                arguments(new TypeOf<Set<Topic>>() {}, Set.of(new Topic("a", List.of()), new Topic("b", List.of()))),
                arguments(new TypeOf<SortedMap<String, Integer>>() {}, new TreeMap<>(Map.of("b", 2, "a", 1))),
                // (The engine unwraps a result's Optional, so Optional is tested where it is a part.)
                arguments(new TypeOf<List<Optional<String>>>() {}, List.of(Optional.of("x"), Optional.empty())),
                // Enums, also as map keys, by name even where toString() says otherwise.
                arguments(new TypeOf<Status>() {}, Status.CLOSED),
                arguments(new TypeOf<List<Status>>() {}, List.of(Status.OPEN, Status.CLOSED)),
                arguments(new TypeOf<Map<Status, Integer>>() {}, Map.of(Status.OPEN, 1, Status.CLOSED, 2)),
                arguments(new TypeOf<EnumMap<Status, String>>() {}, new EnumMap<>(Map.of(Status.CLOSED, "c"))),
                arguments(new TypeOf<DayOfWeek>() {}, DayOfWeek.SUNDAY),
                // java.time, full precision, zones and offsets kept.
                arguments(new TypeOf<Instant>() {}, Instant.parse("2026-01-02T03:04:05.123456789Z")),
                arguments(new TypeOf<Instant>() {}, Instant.MIN),
                arguments(new TypeOf<LocalDate>() {}, LocalDate.of(2024, 2, 29)),
                arguments(new TypeOf<LocalDateTime>() {}, LocalDateTime.of(2026, 1, 2, 3, 4, 5, 6)),
                arguments(new TypeOf<LocalTime>() {}, LocalTime.of(23, 59, 59, 999_999_999)),
                arguments(new TypeOf<Duration>() {}, Duration.ofMillis(1500)),
                arguments(new TypeOf<Duration>() {}, Duration.ofSeconds(-3, 7)),
                arguments(new TypeOf<Period>() {}, Period.of(1, 2, 3)),
                arguments(new TypeOf<Year>() {}, Year.of(2026)),
                arguments(new TypeOf<YearMonth>() {}, YearMonth.of(2026, 2)),
                arguments(new TypeOf<MonthDay>() {}, MonthDay.of(2, 29)),
                arguments(new TypeOf<ZonedDateTime>() {}, ZonedDateTime.of(2026, 7, 1, 9, 0, 0, 1, ZoneId.of("Europe/Paris"))),
                arguments(new TypeOf<ZonedDateTime>() {}, ZonedDateTime.of(2026, 7, 1, 9, 0, 0, 0, ZoneId.of("UTC"))),
                arguments(new TypeOf<ZonedDateTime>() {}, ZonedDateTime.of(2026, 7, 1, 9, 0, 0, 0, ZoneOffset.ofHours(-3))),
                arguments(new TypeOf<OffsetDateTime>() {}, OffsetDateTime.of(2026, 7, 1, 9, 0, 0, 0, ZoneOffset.ofHoursMinutes(5, 30))),
                arguments(new TypeOf<ZoneId>() {}, ZoneId.of("America/New_York")),
                arguments(new TypeOf<ZoneOffset>() {}, ZoneOffset.ofHours(2)),
                arguments(new TypeOf<Map<LocalDate, Instant>>() {}, Map.of(LocalDate.of(2026, 1, 1), Instant.EPOCH)),
                arguments(new TypeOf<Map<Instant, String>>() {}, Map.of(Instant.parse("2026-01-02T03:04:05.5Z"), "x")),
                // Exact numbers: BigDecimal keeps its scale (1.10 is not 1.1), also in exponent form.
                arguments(new TypeOf<BigDecimal>() {}, new BigDecimal("1.10")),
                arguments(new TypeOf<BigDecimal>() {}, new BigDecimal("1E+3")),
                arguments(new TypeOf<BigDecimal>() {}, new BigDecimal("-0.000")),
                arguments(new TypeOf<BigDecimal>() {}, new BigDecimal("123456789012345678901234567890.000000000000001")),
                arguments(new TypeOf<List<BigDecimal>>() {}, List.of(new BigDecimal("0.1"), new BigDecimal("2.50"))),
                arguments(new TypeOf<Map<BigDecimal, String>>() {}, Map.of(new BigDecimal("1.10"), "x")),
                arguments(new TypeOf<BigInteger>() {}, new BigInteger("-123456789012345678901234567890")),
                arguments(new TypeOf<Long>() {}, Long.MIN_VALUE),
                arguments(new TypeOf<Double>() {}, 0.1 + 0.2),
                arguments(new TypeOf<Double>() {}, Double.NaN),
                arguments(new TypeOf<Double>() {}, Double.NEGATIVE_INFINITY),
                arguments(new TypeOf<Float>() {}, 1.1f),
                arguments(new TypeOf<Map<Long, String>>() {}, Map.of(-7L, "x", Long.MAX_VALUE, "y")),
                // Strings and other JDK value types.
                arguments(new TypeOf<String>() {}, "é \u2603 \uD83D\uDE00 \"quoted\" \\ \n\t\u0000"),
                arguments(new TypeOf<String>() {}, ""),
                arguments(new TypeOf<Character>() {}, 'x'),
                arguments(new TypeOf<Boolean>() {}, true),
                arguments(new TypeOf<UUID>() {}, UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e")),
                arguments(new TypeOf<Map<UUID, Topic>>() {}, Map.of(UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e"),
                        new Topic("t", List.of()))),
                arguments(new TypeOf<Locale>() {}, Locale.CANADA_FRENCH),
                // Empty collections.
                arguments(new TypeOf<List<Topic>>() {}, List.of()),
                arguments(new TypeOf<Map<String, Order>>() {}, Map.of()),
                arguments(new TypeOf<Set<String>>() {}, Set.of()),
                arguments(new TypeOf<Topic>() {}, new Topic("", List.of())),
                // Plain classes: setters, public fields.
                arguments(new TypeOf<Invoice>() {}, invoice()),
                arguments(new TypeOf<List<Point>>() {}, List.of(new Point(1, 2), new Point(-3, 4))),
                // Object parts holding JSON's natural types replay equal.
                arguments(new TypeOf<Map<String, Object>>() {}, natural()),
                arguments(new TypeOf<Object>() {}, natural()),
                arguments(new TypeOf<Envelope>() {}, new Envelope("k", natural())),
                arguments(new TypeOf<List<?>>() {}, List.of("a", 1, List.of(true))),
                arguments(new TypeOf<Parts>() {}, new Parts(Optional.of(natural()), List.of(Optional.of(1)), "s")));
    }

    /** Object in an Optional, in an Optional in a List, and a Serializable part. */
    record Parts(Optional<Object> maybe, List<Optional<Object>> maybes, java.io.Serializable serializable) {
    }

    private static Arguments arguments(TypeOf<?> type, Object value) {
        return Arguments.of(type.type.getTypeName(), type.type, value);
    }

    private static Invoice invoice() {
        Invoice invoice = new Invoice();
        invoice.setNumber("INV-1");
        invoice.setTotal(new BigDecimal("14.90"));
        invoice.setLines(List.of(new Line("A", 1, new BigDecimal("14.90"))));
        return invoice;
    }

    private static Map<String, Object> natural() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("s", "text");
        map.put("i", 7);
        map.put("l", 1L << 40);
        map.put("big", new BigInteger("123456789012345678901234567890"));
        map.put("d", 2.5);
        map.put("b", false);
        map.put("n", null);
        map.put("list", new ArrayList<>(List.of(1, "two")));
        map.put("map", new LinkedHashMap<>(Map.of("k", "v")));
        return map;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("values")
    void replayIsEqualToTheOriginal(String name, Type type, Object value) throws Exception {
        ResultCodec codec = codec(type);
        Object replay = roundTrip(codec, value);
        assertEquals(value, replay, () -> "stored as " + safeJson(codec, value));
        // And the replay is stored as well as the original was.
        assertEquals(value, roundTrip(codec, replay));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("values")
    void nullRoundTrips(String name, Type type, Object ignored) throws Exception {
        ResultCodec codec = codec(type);
        assertEquals("null", json(codec, null));
        assertNull(roundTrip(codec, null));
    }

    @Test
    void byteArraysAreBase64() throws Exception {
        ResultCodec codec = codec(byte[].class);
        byte[] bytes = {0, 1, 2, (byte) 0xff, (byte) 0x80};
        assertEquals("\"AAEC/4A=\"", json(codec, bytes));
        assertArrayEquals(bytes, (byte[]) roundTrip(codec, bytes));
        assertArrayEquals(new byte[0], (byte[]) roundTrip(codec, new byte[0]));

        byte[] large = new byte[3 << 20];
        IntStream.range(0, large.length).forEach(i -> large[i] = (byte) (i * 31));
        assertArrayEquals(large, (byte[]) roundTrip(codec, large));

        ResultCodec list = codec(new TypeOf<List<byte[]>>() {});
        @SuppressWarnings("unchecked")
        List<byte[]> replay = (List<byte[]>) roundTrip(list, List.of(bytes, new byte[0]));
        assertArrayEquals(bytes, replay.get(0));
        assertArrayEquals(new byte[0], replay.get(1));
    }

    @Test
    void arraysOfRecords() throws Exception {
        Topic[] topics = {new Topic("a", List.of("b")), null};
        assertArrayEquals(topics, (Topic[]) roundTrip(codec(Topic[].class), topics));
        int[][] grid = {{1, 2}, {3}};
        assertArrayEquals(grid, (int[][]) roundTrip(codec(int[][].class), grid));
    }

    @Test
    void primitivesAndVoid() throws Exception {
        assertEquals(7, roundTrip(codec(int.class), 7));
        assertNull(roundTrip(codec(int.class), null));
        assertEquals(true, roundTrip(codec(boolean.class), true));
        assertNull(roundTrip(codec(void.class), null));
        assertNull(roundTrip(codec(Void.class), null));
    }

    @Test
    void anObjectPartIsData() throws Exception {
        ResultCodec codec = codec(Envelope.class);
        Object replay = roundTrip(codec, new Envelope("order", ORDER));
        Object payload = ((Envelope) replay).payload();
        assertInstanceOf(LinkedHashMap.class, payload);
        assertEquals("CLOSED", ((Map<?, ?>) payload).get("status"));
        assertEquals(new BigDecimal("19.90").doubleValue(), ((Map<?, ?>) payload).get("amount"));
    }

    @Test
    void collectionsReplayAsEqualCollections() throws Exception {
        Map<String, Integer> original = new HashMap<>(Map.of("a", 1, "b", 2));
        Object replay = roundTrip(codec(new TypeOf<Map<String, Integer>>() {}), original);
        assertEquals(original, replay);
        assertInstanceOf(LinkedHashMap.class, replay);
    }

    @Test
    void aBodyIsOneLineOfJson() throws Exception {
        ResultCodec codec = codec(Model.Envelope.class);
        byte[] body = codec.encode(new Model.Envelope("multi\nline", Map.of("k", "a\nb")));
        assertEquals("{\"kind\":\"multi\\nline\",\"payload\":{\"k\":\"a\\nb\"}}\n",
                new String(body, java.nio.charset.StandardCharsets.UTF_8));
        assertArrayEquals("null\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII), codec.encode(null));
    }

    @Test
    void theStoredFormIsReadableJson() throws Exception {
        // Record components in declaration order; the properties of plain classes alphabetically.
        assertEquals("{\"id\":42,\"amount\":19.90,\"status\":\"CLOSED\",\"placedAt\":\"2026-03-01T10:15:30.123456789Z\","
                        + "\"customer\":{\"name\":\"Ada\",\"address\":{\"city\":\"Paris\",\"postcode\":\"75001\"}},"
                        + "\"note\":\"leave at the door\",\"lines\":[{\"sku\":\"A-1\",\"quantity\":2,\"price\":4.95},"
                        + "{\"sku\":\"B-2\",\"quantity\":1,\"price\":10.00}]}",
                json(codec(Order.class), ORDER));
        assertEquals("\"2026-07-01T09:00:00.000000001+02:00[Europe/Paris]\"", json(codec(ZonedDateTime.class),
                ZonedDateTime.of(2026, 7, 1, 9, 0, 0, 1, ZoneId.of("Europe/Paris"))));
        assertEquals("\"PT1.5S\"", json(codec(Duration.class), Duration.ofMillis(1500)));
        assertEquals("\"2024-02-29\"", json(codec(LocalDate.class), LocalDate.of(2024, 2, 29)));
        assertEquals("{\"lines\":null,\"number\":\"N\",\"total\":null}", json(codec(Invoice.class), invoiceNumbered()));
    }

    private static String safeJson(ResultCodec codec, Object value) {
        try {
            return json(codec, value);
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static Invoice invoiceNumbered() {
        Invoice invoice = new Invoice();
        invoice.setNumber("N");
        return invoice;
    }
}
