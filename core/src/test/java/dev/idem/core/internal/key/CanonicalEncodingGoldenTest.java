package dev.idem.core.internal.key;

import dev.idem.Normalize;
import dev.idem.core.KeyCanonicalizer;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Currency;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static dev.idem.core.internal.key.CanonicalDigests.digestOf;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * SEMANTICS.md section 2: the canonical bytes of a broad set of values, pinned as SHA-256 digests taken from the
 * encoder as it was when keys were first stored. A key already in a user's store stays findable only while every
 * one of these is the same, so a digest here is never updated to make a test pass: a change is a new key format.
 *
 * <p>Each value is encoded cold (the first encoding on a fresh thread state), through a parameter's cached type
 * ({@link CanonicalEncoder#encode(Object, KeySource)}) often enough that flat classes are written by their composed
 * {@link FlatWriter}, and after a large encoding left the thread's scratch space dirty: all must give these bytes.
 */
class CanonicalEncodingGoldenTest {

    enum Colour { RED, GREEN }

    enum Mood {
        CALM,
        HAPPY {
            @Override
            public String toString() {
                return "happy!";
            }
        }
    }

    record Customer(String id, String name, List<String> tags) {
    }

    record Empty() {
    }

    record Nested(Customer customer, Map<String, Integer> counts, Optional<Colour> colour) {
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

    static class Base {
        String shared = "base";
        int level = 1;
    }

    static class Derived extends Base {
        String shared = "derived";
        long extra = -1;
    }

    /** Every kind of field the flat path writes, with the values whose encoding is special. */
    static class AllKinds {
        int i = Integer.MIN_VALUE;
        long l = Long.MAX_VALUE;
        short s = -3;
        byte b = -128;
        boolean z = true;
        boolean off = false;
        double d = -0.0;
        double e = Double.longBitsToDouble(0x7ff8000000000badL);
        float f = Float.NaN;
        float g = -1.5f;
        char c = '\uD83D';
        String text = "na\u00efve \uD834\uDD1E text";
        String none = null;
        String empty = "";
        Colour colour = Colour.GREEN;
        Colour noColour = null;
        Mood mood = Mood.HAPPY;
    }

    /** Not flat: fields whose values' classes are open, and a nested flat object. */
    static class Mixed {
        Object anything = 7L;
        Object nothing = null;
        List<Object> items = List.of("a", 1, List.of());
        AllKinds inner = new AllKinds();
        Integer boxed = 3;
        BigDecimal price = new BigDecimal("19.990");
        char letter = 'q';
        float ratio = 0.25f;
        double big = 1e300;
        boolean flag = true;
        short small = 12;
        int count = 4;
    }

    private static final Canonicalizers UUIDS_AS_TEXT = Canonicalizers.of(List.of(new KeyCanonicalizer<UUID>() {
        @Override
        public Class<UUID> type() {
            return UUID.class;
        }

        @Override
        public Object canonicalize(UUID value) {
            return value.toString();
        }
    }));

    private static final UUID AN_ID = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    private static final String LONG_ASCII = "x".repeat(70_000);
    private static final String LONG_TEXT = "\u00e9\u4e2d\uD83D\uDE00a".repeat(20_000);

    /** The values, by name; each name's golden digest is in {@link #GOLDEN}. */
    private static Map<String, Object> values() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("null", null);
        v.put("true", true);
        v.put("false", false);
        v.put("int 0", 0);
        v.put("int -1", -1);
        v.put("int max", Integer.MAX_VALUE);
        v.put("int min", Integer.MIN_VALUE);
        v.put("long max", Long.MAX_VALUE);
        v.put("long min", Long.MIN_VALUE);
        v.put("short", (short) -300);
        v.put("byte", (byte) 127);
        v.put("bigint small", BigInteger.valueOf(-42));
        v.put("bigint 2^63", BigInteger.ONE.shiftLeft(63));
        v.put("bigint -2^200", BigInteger.ONE.shiftLeft(200).negate());
        v.put("double 1.5", 1.5);
        v.put("double -0.0", -0.0);
        v.put("double NaN", Double.NaN);
        v.put("double other NaN", Double.longBitsToDouble(0x7ff8000000000badL));
        v.put("double +inf", Double.POSITIVE_INFINITY);
        v.put("double -inf", Double.NEGATIVE_INFINITY);
        v.put("double min", Double.MIN_VALUE);
        v.put("float 0.1", 0.1f);
        v.put("float NaN", Float.NaN);
        v.put("decimal 1.50", new BigDecimal("1.50"));
        v.put("decimal 0.000", new BigDecimal("0.000"));
        v.put("decimal -1E+5", new BigDecimal("-1E+5"));
        v.put("decimal long", new BigDecimal("123456789012345678901234567890.123456789"));
        v.put("char a", 'a');
        v.put("char high", '\uFFFF');
        v.put("char surrogate", '\uD800');
        v.put("string empty", "");
        v.put("string ascii", "gemini-lab:daily-content");
        v.put("string latin1", "na\u00efve caf\u00e9");
        v.put("string bmp", "\u4e2d\u6587\u0800\u07ff");
        v.put("string pair", "\uD834\uDD1E \uD83D\uDE00");
        v.put("string unpaired", "a\uD800b\uDC00c\uD800");
        v.put("string long ascii", LONG_ASCII);
        v.put("string long text", LONG_TEXT);
        v.put("string builder", new StringBuilder("built"));
        v.put("enum", Colour.RED);
        v.put("enum with body", Mood.HAPPY);
        v.put("uuid", AN_ID);
        v.put("instant", Instant.parse("2026-03-01T10:15:30.123456789Z"));
        v.put("local date", LocalDate.of(2026, 3, 1));
        v.put("local time", LocalTime.of(23, 59, 1));
        v.put("local date time", LocalDateTime.of(2026, 3, 1, 8, 0));
        v.put("offset date time", OffsetDateTime.of(2026, 3, 1, 8, 0, 0, 0, ZoneOffset.ofHours(9)));
        v.put("offset time", OffsetTime.of(8, 0, 0, 0, ZoneOffset.UTC));
        v.put("zoned date time", ZonedDateTime.of(2026, 3, 1, 8, 0, 0, 0, ZoneId.of("Asia/Tokyo")));
        v.put("year", Year.of(2026));
        v.put("year month", YearMonth.of(2026, 3));
        v.put("month day", MonthDay.of(2, 29));
        v.put("month", Month.MARCH);
        v.put("day of week", DayOfWeek.FRIDAY);
        v.put("duration", Duration.ofMinutes(90).plusNanos(5));
        v.put("period", Period.of(1, 2, 3));
        v.put("zone id", ZoneId.of("Europe/Paris"));
        v.put("zone offset", ZoneOffset.ofHoursMinutes(-3, -30));
        v.put("uri", URI.create("https://example.com/a?b=c"));
        v.put("locale", Locale.forLanguageTag("pt-BR"));
        v.put("currency", Currency.getInstance("EUR"));
        v.put("bytes", new byte[] {0, -1, 127, -128});
        v.put("bytes empty", new byte[0]);
        v.put("ints", new int[] {1, -2, Integer.MAX_VALUE});
        v.put("longs", new long[] {Long.MIN_VALUE, 0});
        v.put("doubles", new double[] {-0.0, Double.NaN, 2.5});
        v.put("floats", new float[] {1.25f, -0.0f});
        v.put("booleans", new boolean[] {true, false});
        v.put("chars", new char[] {'a', '\u00e9', '\uD83D'});
        v.put("shorts", new short[] {-1, 300});
        v.put("objects", new Object[] {"a", 1, null, new Object[] {2L}});
        v.put("strings", new String[] {"ab", "c"});
        v.put("optional empty", Optional.empty());
        v.put("optional present", Optional.of("x"));
        v.put("optional nested", Optional.of(Optional.of(List.of(1))));
        v.put("optional int", OptionalInt.of(5));
        v.put("optional int empty", OptionalInt.empty());
        v.put("optional long", OptionalLong.of(-5));
        v.put("optional long empty", OptionalLong.empty());
        v.put("optional double", OptionalDouble.of(-0.0));
        v.put("optional double empty", OptionalDouble.empty());
        v.put("list empty", List.of());
        v.put("list", List.of("a", "b"));
        v.put("list ab", List.of("ab"));
        v.put("list nested", List.of(List.of(1, 2), List.of(), List.of(List.of("deep"))));
        v.put("array list with null", new ArrayList<>(Arrays.asList("x", null, 3)));
        v.put("linked list", new LinkedList<>(List.of(1L, 2L)));
        v.put("deque", new ArrayDeque<>(List.of('a', 'b')));
        v.put("set empty", Set.of());
        v.put("hash set", new HashSet<>(List.of("pear", "apple", "fig", "banana")));
        v.put("tree set", new TreeSet<>(List.of(3, 1, 2)));
        v.put("enum set", EnumSet.allOf(Colour.class));
        v.put("set of lists", Set.of(List.of(1), List.of(2, 3), List.of()));
        v.put("map empty", Map.of());
        v.put("hash map", new HashMap<>(Map.of("b", 2, "a", 1, "c", List.of(3))));
        v.put("tree map", new TreeMap<>(Map.of(10, "ten", 2, "two")));
        v.put("map null value", new HashMap<>(withANullValue()));
        v.put("map of maps", Map.of("outer", Map.of("inner", Set.of(1.5, 2.5))));
        v.put("record", new Customer("c-1", "Ada", List.of("vip", "eu")));
        v.put("record nulls", new Customer(null, null, null));
        v.put("record empty", new Empty());
        v.put("record nested", new Nested(new Customer("c-2", "Bo", List.of()), Map.of("x", 1),
                Optional.of(Colour.GREEN)));
        v.put("plain", new Plain("rust", 20261129));
        v.put("plain nulls", new Plain(null, -1));
        v.put("inherited fields", new Derived());
        v.put("all kinds", new AllKinds());
        v.put("mixed", new Mixed());
        v.put("list of objects", List.of(new Plain("a", 1), new AllKinds(), new Customer("c", "d", List.of())));
        v.put("deeply nested", nest(List.of("leaf"), 60));
        v.put("large list", IntStream.range(0, 5_000).boxed().collect(Collectors.toList()));
        v.put("large set", IntStream.range(0, 2_000).mapToObj(i -> "e" + i).collect(Collectors.toSet()));
        v.put("large map", IntStream.range(0, 1_000).boxed().collect(Collectors.toMap(i -> "k" + i, i -> i)));
        v.put("everything", List.of("prompt", 42L, new BigDecimal("1.50"), Colour.RED, LocalDate.of(2026, 3, 1),
                Map.of("b", 2, "a", 1), Set.of("y", "x"), Optional.of(AN_ID), new Customer("c-1", "Ada",
                        List.of("vip"))));
        return v;
    }

    private static Map<String, Object> withANullValue() {
        Map<String, Object> m = new HashMap<>();
        m.put("k", null);
        m.put("j", "v");
        return m;
    }

    private static Object nest(Object value, int levels) {
        Object nested = value;
        for (int i = 0; i < levels; i++) {
            nested = List.of(nested);
        }
        return nested;
    }

    /** The golden digests: name, then SHA-256 of the value's canonical encoding in hex. */
    private static final String[] GOLDEN = {
        "null", "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "true", "dbc1b4c900ffe48d575b5da5c638040125f65db0fe3e24494b76ea986457d986",
        "false", "4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a",
        "int 0", "dc4c8669df128318c5790c414c870cc76c585268552851e78d3ee8604dbec0e3",
        "int -1", "339eed010a5e07b4314cb00f1234d636dc30df8fce73917165c299c6b4811804",
        "int max", "a7ed4bae40750bb791743b3291b2c542f3cf17da8a9d0bca853ae4256f48a974",
        "int min", "78a5afd823f8db880234314d322da3a19ecc4bc01f2cf3aa4726ee58e2feb685",
        "long max", "f43adfb9194012945124a38f118e7a589cdaac8eee8d0e5cf263ca79dc6319bd",
        "long min", "b9b8f72be2eec31d908160bfcfc8b04e118eca731888b43b6b842c4267c1fc3c",
        "short", "65f83e8ab1bd619601af1e772287817738e3a3a37fc0194f7207530da4aee2bd",
        "byte", "ab9b1ee52a69ab74845201545dd8014e4037be5e89b9d4e659336162a8bd4066",
        "bigint small", "66917ea459da4dbdd62ad87ff547d32071daa03b3d4454e831e78b1efcb27d4f",
        "bigint 2^63", "54fea0ff6dca0a2250955feb4a3ea824e803140fadf6a0b0944c993f70b7a503",
        "bigint -2^200", "0925a7729cac8f208255e8cafba51cd55d9090d916027fdf16923250a6178d90",
        "double 1.5", "3cc764d2af74fcaa289b7397fdc695527c09e57001a5d60c00a066a8469b91ce",
        "double -0.0", "6c449f91c1adbf3945ad078f5f875c0c1f133f246c4588668faffbe23a3c195f",
        "double NaN", "1e334b0078af795f8b546ca71463f6cac4e364f469acb490780e915e8deff861",
        "double other NaN", "1e334b0078af795f8b546ca71463f6cac4e364f469acb490780e915e8deff861",
        "double +inf", "58201ed1c77965aa3f7598c5effa9c8d67aca7c5273c0d803ab01e9f2e3e5720",
        "double -inf", "d518b51e6804461161761afc758b58322042f9d23301f0ad50c94c6597d1c036",
        "double min", "a011061167419227d27191bcfecb53baee0b76a98334b8b65bcbf6b3fea28f6d",
        "float 0.1", "2ca487d88f4109505a158de84f452f458a58e4963d9c056751702ad053bd9155",
        "float NaN", "1e334b0078af795f8b546ca71463f6cac4e364f469acb490780e915e8deff861",
        "decimal 1.50", "65d45e0fc8b7d4e75f3c93398e6b9b0ea31edd6022a489fc9135563f3511769b",
        "decimal 0.000", "c2251a686cfdcd04c115ec78cbab69eb01951707aa4df31db310354098bf5431",
        "decimal -1E+5", "e2ed10278b8954cb3f44485c67006a7e3cd5e719cbceb9712b7292455f9b4ee9",
        "decimal long", "fbd48d65a8c6880581427216032b56a7af1fc1665dbd507cf3fb8cf183d945a5",
        "char a", "08cb04523d895a51cdb818655668e7d6809a1fb8a8861845125faaa86608f607",
        "char high", "eb33031edd5cb9a2ad36da8509c78f6c310a5942e519f9620dd112a4ec58d0ed",
        "char surrogate", "883e715266bb5103bb9dd641b7adef9ebd0c254e645830aee2ee41124903de7b",
        "string empty", "18b1b592a44f7fbe33dab6a3d22857eea5118da14d6fabbc59b0681dbf1286f1",
        "string ascii", "bcefbfd227d41338c789dc0e8054e61362114a92086389f3cf2c7dbb7f8a4cc9",
        "string latin1", "56403ec3a75c0505592578ba7d2c1d1bec42857a9cab89b69e4bbf896d9c0719",
        "string bmp", "2f431c0adbed60eed73bbef6a77dc372d11f87d235484b3f75ea0671027a1da6",
        "string pair", "e3e64fd97e6a170141bb86a3b16e6f0fd4140c2ef679b09ce447261454aee52b",
        "string unpaired", "2356e5cf55a8e28be6dc1815332f3367d9005e9a06b63de3999031161274e196",
        "string long ascii", "e82d097fa9ddd85d20346d5490d5883410560c6855220fd66b3bc740b0b0f3d4",
        "string long text", "aebd6e7330882c9498e10ffdeca73d735e6340d2cf86ad0793a2882d9a98ce97",
        "string builder", "22bee85aa5687899ffeb6af2b4089983082535b5b03297128ecf2f0c68c41195",
        "enum", "5d70632e94e94634a57f2df4f2301e5e9674f4986fc5079e821bf1431c32044a",
        "enum with body", "75fb00cb6e97c6a120b369b58511e578c03a6e0f2369f0ffcf8334cf2e32b000",
        "uuid", "19d6bda7e412fe8b7a1360525c0f1f5ef8bc275c9acce0e0b183371007a8e752",
        "instant", "a5d935cb9a4f1ad2d6230a74720fa536276852710eefacef8c2c67038b03caa8",
        "local date", "25959f7ef8fe6f14cd2cfb4cc937b151666e6e6dee7adaad0f0ec56255ab74b2",
        "local time", "0abe8bf0319c315f320127d9d1fff067c11d782d22232618ca88c7d1489575aa",
        "local date time", "a270cf38e0d67e7ed092df650c01d6f6e4e4bfed99a591df7941bb6a815d28b9",
        "offset date time", "a1cce4e2be66fef95ea7c904ec3de833a41cd1c3e2ac032958d84bc1500da941",
        "offset time", "34daa4a649608bf10889063159004033369dbe7e7fd03be440a72d27b61d5455",
        "zoned date time", "7932ee446de860a1607ba74052458d0aef26d7fe38d3e6dceadc337c39caf702",
        "year", "12dc0808270ad79874c0d35d51fc2ad1957df8e20feb4f5a29258eae92e0d785",
        "year month", "bffdccd23b4d8bc6b8a70e8997c3743aa70d6a3301267e223b1be0b7adbcb9bf",
        "month day", "4ffe955fc08ed9bc822edf476d25b8de9020a74b4c46d261114844005db839c1",
        "month", "020e88da44d96e8f0702f6b20f464a037bcab9f1be49fa787247cb48a37bd861",
        "day of week", "b453a023f5e065e794057739b95613cfdff89789259a5147b2b5e4feafa3eac9",
        "duration", "fb6b906bb5e9aa38d35feb7069c9a5c5972a69af707f1c60e1462c2fef81d189",
        "period", "3982374ba040c81ed7ea2bcaf9065ac6b516f6fced215fd79295c5a25effe6a2",
        "zone id", "b55e468b199990584c297ce9a9a0e09c1b8c0c3f43673e28748e362ed852d0d8",
        "zone offset", "d192a27bf262868c11b2d10f49b60da853ab341568d01f3b2f250861a105b9c0",
        "uri", "a33a3c669de942476b478cc6b970842fedb730d2e59460dff22cf854c3b8ba51",
        "locale", "b1cb97def7f553f68a05fd75b29fea1561d4643c03c535cbe5c7289a3ff83b40",
        "currency", "324661c2e3bbca5f749fc912d66e749963e507ac4c4a2466b841f18a2991ab5b",
        "bytes", "ddb0f694633fa9b0dc00dfae8435e16ce59dade21e18661b416538967490d7ad",
        "bytes empty", "d3402a165bdbec9c4caad3fec017fd23e3b01541a374188cfbb52eabbe81cb15",
        "ints", "30ccc62e628b829847ab5afcab48af65439fbe939e3bf7a4575652f92aa8f6fb",
        "longs", "490295044ce1c2a40cf42848aa4a296373145e4e70ddff66251cafd96b775d4e",
        "doubles", "e2bfd124d6683b8fb1e7c8364440c4f50485498f3b39efab4b79705a352e2c62",
        "floats", "8e4470cb360b5fd554b63df5bb04aa3acbcc20c3405c8a2cdf111f0628c2c288",
        "booleans", "3f3f2ef2a54a15f8387e7d292b4b3bd314f4895d0eaa410094731a6ab1898f97",
        "chars", "4da08fc21403b93f24453a69207886d6a9341ae1e5f19d1a5afb0a391867ac30",
        "shorts", "8516c278942ddce710d3171e5afe3d5a63df9975656e4fb5afe12dbd0a0ea833",
        "objects", "e9d6379fad466c554b440032505ba062861532496bc0ef8f32c4a38da83f3ff8",
        "strings", "70a38ea6f2bcba86cd98e177614d3671f5aa12db044140bf91ff9a662da19b05",
        "optional empty", "c555eab45d08845ae9f10d452a99bfcb06f74a50b988fe7e48dd323789b88ee3",
        "optional present", "d9c7e7b303d6706b5e4a9e96c3d590f2fea419605e178341396888e4aa3ccab8",
        "optional nested", "7fbc4798ab1a7f3a8a3a5d6a0ac3f42463ae29cedf52502d13126e8a6d88b853",
        "optional int", "78e7051666f969ec378f8945247946de842137a1e67905cbf73b0ffd2646a1a9",
        "optional int empty", "c555eab45d08845ae9f10d452a99bfcb06f74a50b988fe7e48dd323789b88ee3",
        "optional long", "5d94daa23d4aa7a9479d2826899228be18d85b22672513181733aa4d55f2a245",
        "optional long empty", "c555eab45d08845ae9f10d452a99bfcb06f74a50b988fe7e48dd323789b88ee3",
        "optional double", "f266433bda617c3c910dbc608d4065ef3c615fe1a90e2a08383d02308c7a8249",
        "optional double empty", "c555eab45d08845ae9f10d452a99bfcb06f74a50b988fe7e48dd323789b88ee3",
        "list empty", "3c8f1b104592e3ebb2b2602b3979a27e77f586fb4c655369fa4eccb6d545a0f8",
        "list", "ba9bf1eb03e54ad92959f5cebb0378a527f55e083cdb3d1395af7d5eda0dff5a",
        "list ab", "0958ddb20b41065846903dbc195d1526fca8ec80dca2f7229892843a7c32aee5",
        "list nested", "4b7aa6a5d49694581aeec36d3762b2a0842b8de3ab172d9faa6f418948a15f02",
        "array list with null", "8a4b8041e69b587e02f78852d8b48696ce5559faf100a97f03c328892a9c09ea",
        "linked list", "651fd9a890210f332faf16802291753bc2fb3093b209e3bc0a5411c1c40186f6",
        "deque", "00e154dd6a9629766a1a2f75b71047b5a291d1512487707d987698a9367c1a1c",
        "set empty", "83eafc118ee2ef9073ef3ce2a22a49fe47a950df022806a23ab07bb889db1d6f",
        "hash set", "9c273890b91243e0332eab5265f4af5f0b38461d04c38ce8ad1964d0151a9833",
        "tree set", "4e558285c93c881a87cf8d1c38a6c4b9ee7d6a98c22ba86b2d03057ed9b36bd0",
        "enum set", "54adbf5ad0f4462897b7d5f527f09244d5b4be46ebeb2bbe0443b193b468e168",
        "set of lists", "48da835f39049bd0a4d0295d807d91c18f876dc340e38fa8fe2340b2107b3f81",
        "map empty", "b7be624dcb1dfdacd784f4a79698ee22c0422a166367f2c5c927f01b37a2d93e",
        "hash map", "472859fe64cabc0c9a4fdf22ce8ca9324c638b64ac333d273cf91f72d6fa6da0",
        "tree map", "98a4284772e0ab7acbcc494f77e1d234ed720cc8a8be0cde0a22cdc2e795383d",
        "map null value", "bec15b7f28c4ecdd1d7d368fdc5d38a4bae17d9d67b53be89d049bca66ee5bc0",
        "map of maps", "43a13edfe7e9b1c0f2a0e047e0d95256d6bacf25d656e62fad0a058640077131",
        "record", "2c5c31838c8366bebe5f523cd4339fb2a564c98b61ce80eae07e9bba395e25d8",
        "record nulls", "5ea6bbca9e29101de335ca3dd7ff19c4ba4d07251eaddaf83bea3ccc3ad0ed0a",
        "record empty", "5b6913fb226d74222e31ba1e9be64274eb3dba34a83c4d252608711a18ee6fcf",
        "record nested", "a613e84d24129c8242816ae44647d6262fea0fb6cd26941fbb3fa65202460e5b",
        "plain", "eba8bbd03dd59040c5caf9a1b1b6ba792b6b4b6f3fe6ec7d8fc9426e25f252d3",
        "plain nulls", "9302352ab5b2dc54b7792f56d2a7f34952dcb69e2372286f4fabae3911863995",
        "inherited fields", "8a4b8ddfdc298fccfbb40245ccd8103cacfed01f5f735dbe44a75271bcc076ce",
        "all kinds", "eaa0d58da8dd32508d54016dc55cb88112e0ec0c437e675da3bb64e56f09efc4",
        "mixed", "529d2ddfb906264eb9c939c1aadf6257f8fdf69f0980d1ad46c6714a6f7b2e93",
        "list of objects", "0859986a2b1e1d6e49f432b71ee39b9266d4d2359029c5b730c01d82f7d02038",
        "deeply nested", "c02e98c1cce39854613274a5eb73d68b1cbeed33e960eb4ea670da07d25542c4",
        "large list", "cb6da28024b251604d69db2e9124279e14a0613f7e4b3d8e8b1b16fef107cae4",
        "large set", "6eea49bdfb0665d8a43b7bf9777847a56465ded0195e81bfe5d752cc41873eba",
        "large map", "2023015c8978cb677e17a691d029d1e198443a20318c1f8490393c81c232a564",
        "everything", "5e732e61b6a97f493d1f7b7e0ace7962eb2957fd697b5474483d28d75e48f1cb",
    };

    private static Map<String, String> golden() {
        Map<String, String> g = new LinkedHashMap<>();
        for (int i = 0; i < GOLDEN.length; i += 2) {
            g.put(GOLDEN[i], GOLDEN[i + 1]);
        }
        return g;
    }

    /** Fills this thread's encoder's scratch space with non-zero bytes, then releases it. */
    private static void dirtyTheScratchSpace() {
        digestOf(e -> e.encode(List.of("z".repeat(50_000), Set.of("q".repeat(300), "r".repeat(200)))));
        digestOf(e -> e.encode("\u00ff".repeat(200)));
    }

    /** Every name's digest, taken as {@code how} encodes the value. */
    private static Map<String, String> digests(Map<String, Object> values, String how) {
        Map<String, String> actual = new LinkedHashMap<>();
        values.forEach((name, value) -> {
            KeySource source = new KeySource(0, name, PropertyPath.WHOLE, new Normalize[0]);
            switch (how) {
                case "cold":
                    actual.put(name, digestOf(e -> e.encode(value)));
                    break;
                case "hot":
                    String first = digestOf(e -> e.encode(value, source));
                    for (int i = 0; i <= ObjectLayout.COMPOSE_WRITER_AFTER + 1; i++) {
                        String again = digestOf(e -> e.encode(value, source));
                        if (!again.equals(first)) {
                            actual.put(name, "changed at encoding " + i + ": " + again);
                            return;
                        }
                    }
                    actual.put(name, first);
                    break;
                default: // dirty
                    dirtyTheScratchSpace();
                    actual.put(name, digestOf(e -> e.encode(value, source)));
            }
        });
        return actual;
    }

    private static String table(Map<String, String> digests) {
        return digests.entrySet().stream().map(e -> "        \"" + e.getKey() + "\", \"" + e.getValue() + "\",")
                .collect(Collectors.joining("\n", "\n", "\n"));
    }

    @Test
    void everyValueEncodesToItsGoldenBytesColdHotAndAfterADirtyScratchSpace() {
        Map<String, Object> values = values();
        Map<String, String> expected = golden();
        for (String how : List.of("cold", "hot", "dirty")) {
            Map<String, String> actual = digests(values, how);
            assertEquals(table(expected), table(actual), how + " encoding: the canonical bytes changed");
        }
    }

    /**
     * A key's derivation as the plan writes it: the key values as a list, a marked prefix (the payload's digest),
     * the version, a FIXED window's start. Short and long prefixes take the digest's two ways to the prefix's hash.
     */
    @Test
    void aKeyAndItsPayloadPrefixKeepTheirGoldenDigests() {
        ConstantBytes version = CanonicalEncoder.encodedConstant("v2");
        ConstantBytes longVersion = CanonicalEncoder.encodedConstant("version-" + "9".repeat(40));
        List<String> actual = new ArrayList<>();
        for (Object keyValue : List.of("order-1", LONG_ASCII.substring(0, 2_000), new Customer("c", "d", List.of()))) {
            for (ConstantBytes v : List.of(version, longVersion)) {
                CanonicalEncoder encoder = CanonicalEncoder.acquire();
                try {
                    encoder.writeByte(CanonicalEncoder.LIST);
                    encoder.writeInt(2);
                    encoder.encode(keyValue, new KeySource(0, "k", PropertyPath.WHOLE, new Normalize[0]));
                    encoder.encode(AN_ID);
                    encoder.markPrefix();
                    encoder.writeConstant(v);
                    encoder.writeInteger(1_772_323_200_000L);
                    actual.add(Sha256.hex(encoder.sha256(), Sha256.LENGTH));
                    actual.add(Sha256.hex(encoder.prefixSha256(), Sha256.LENGTH));
                    encoder.truncate(0);
                    encoder.using(UUIDS_AS_TEXT).encode(List.of(AN_ID, Optional.of(AN_ID)));
                    actual.add(Sha256.hex(encoder.sha256(), Sha256.LENGTH));
                } finally {
                    encoder.release();
                }
            }
        }
        assertEquals(String.join("\n", GOLDEN_KEYS), String.join("\n", actual));
    }

    /** {@link #aKeyAndItsPayloadPrefixKeepTheirGoldenDigests}'s digests, in order. */
    private static final String[] GOLDEN_KEYS = {
        "747ce41402cb0f3ad480b68e1e84e908f5314cfc720a909a9e945a63a838cd10",
        "c23131b910fc0a1a9cdf971ce41741f4041c320400167bb797bcab3946d348e0",
        "c84bcfecd3ceb3747959bbd863332d208b9a23e0daf8f094a82b676ec13f6745",
        "4529660c7d3e6d7c59353700ef837c1c931f43e79d409dc75cf915bb8cb36872",
        "c23131b910fc0a1a9cdf971ce41741f4041c320400167bb797bcab3946d348e0",
        "c84bcfecd3ceb3747959bbd863332d208b9a23e0daf8f094a82b676ec13f6745",
        "93b0e1eab6327ba2102123b3063814b514e71a40e7a4844b2d92d99808d0e2a7",
        "2773fed21ef52ce3e79a7656d80510c3f186b34a8dbba2ef38e9f3a94522470f",
        "c84bcfecd3ceb3747959bbd863332d208b9a23e0daf8f094a82b676ec13f6745",
        "d086008350ce2acd8f3927569b778f9ff31db634a62549360539b2ab4b60f312",
        "2773fed21ef52ce3e79a7656d80510c3f186b34a8dbba2ef38e9f3a94522470f",
        "c84bcfecd3ceb3747959bbd863332d208b9a23e0daf8f094a82b676ec13f6745",
        "13e049d5f2c7291cfd516bbea02e20c4bcdc8ee704da5e5c53e8c6bd0b950712",
        "92f8611cfa43ab9a2640c83cd3387ab8dea6e94b0a3cf7aef7752404168610d2",
        "c84bcfecd3ceb3747959bbd863332d208b9a23e0daf8f094a82b676ec13f6745",
        "a3747ff36a0ee84225cdde4359272c4f5efdff67a4d69e0ff3a8aa26202108a5",
        "92f8611cfa43ab9a2640c83cd3387ab8dea6e94b0a3cf7aef7752404168610d2",
        "c84bcfecd3ceb3747959bbd863332d208b9a23e0daf8f094a82b676ec13f6745",
    };
}
