package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.ResultCodecProvider;
import dev.idem.codec.UnsupportedResultTypeException;
import jakarta.annotation.Nonnull;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

import java.lang.reflect.Type;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The {@code json} result codec: results stored as JSON written and read by Jackson 3, typed by the method's declared
 * result type. Found by {@link java.util.ServiceLoader}; with this module on the class path it is the default codec
 * (priority 100, above the core's {@code java} codec at 0), and {@code idem.codec=java} or
 * {@code @Idempotent(codec = "java")} still chooses the other.
 *
 * <h2>What can be stored</h2>
 * Records and plain classes (a creator Jackson can use, such as a no-argument constructor with setters, or a
 * constructor with parameter names), with no marker interface; enums; strings, numbers, booleans, {@code byte[]}
 * (base64); {@code BigDecimal} and {@code BigInteger}; {@code java.time} values, {@code UUID}, {@code Locale} and the
 * other JDK value types Jackson knows; collections, maps, arrays and {@code Optional} of these, nested at will.
 * {@link #forType} checks the whole declared type ({@code List<Topic>}, {@code Map<String, Order>}) through type
 * arguments, record components and properties before the method ever runs, and refuses with
 * {@link UnsupportedResultTypeException}, naming the part at fault and the fix:
 * interfaces and abstract classes Jackson has no implementation for, types annotated {@code @JsonTypeInfo},
 * {@code Class}, classes without a usable creator or whose state Jackson cannot write and read back, type variables
 * without a bound, and map keys other than strings, numbers, enums, UUIDs and ISO dates and times.
 *
 * <h2>Data, not code</h2>
 * Stored JSON never names a class: there are no type ids (no default typing, no polymorphic types), so decoding
 * builds only the declared type, its type arguments, components and properties, and the JDK's value types, whatever
 * the bytes say. A part declared {@code Object} decodes to JSON's natural Java types ({@code LinkedHashMap},
 * {@code ArrayList}, {@code String}, {@code Integer}/{@code Long}/{@code BigInteger}, {@code Double},
 * {@code Boolean}): it is data, and replays equal only when it held such values. A part declared {@code Number} likewise decodes to {@code Integer}, {@code Long},
 * {@code BigInteger} or {@code Double}; declare {@code BigDecimal} for exact decimals. A body cut short is refused
 * with {@code EOFException}; bodies nested deeper than 500 levels, numbers longer than 1000 digits, malformed bodies
 * and trailing garbage with Jackson's (unchecked) {@code JacksonException}, at once.
 *
 * <h2>The stored form (format version 1)</h2>
 * <ul>
 *   <li>One line: compact UTF-8 JSON, then a newline, which marks the end, so that a body cut short is refused even
 *       where what is left would parse.</li>
 *   <li>Properties in alphabetical order (record components first), every property written, nulls included
 *       ({@code @JsonInclude} is ignored, so that what was stored is what replays).</li>
 *   <li>{@code java.time} values as ISO-8601 strings with full precision: an {@code Instant} keeps its nanoseconds,
 *       a {@code ZonedDateTime} its region ({@code 2026-01-02T03:04:05+01:00[Europe/Paris]}), a {@code Duration} is
 *       {@code PT1.5S}.</li>
 *   <li>{@code BigDecimal} as a JSON number in its {@code toString()} form, scale kept: {@code 1.10} replays as
 *       {@code 1.10}, equal to the original.</li>
 *   <li>Enums by {@code name()}, never by {@code toString()} or ordinal.</li>
 * </ul>
 *
 * <h2>Reading results stored by another release</h2>
 * A property the type no longer has is ignored, so a release that removed a field reads results stored before it. A
 * constructor parameter (a record component) missing from the stored JSON fails decoding: the replay would hold a
 * null the method never returned. A plain class's setter property missing from it keeps the value its constructor
 * gave. When a result type changes incompatibly, change {@code @Idempotent(version = ...)}, which changes the keys.
 *
 * <h2>Encoding</h2>
 * A value is written as its declared type shows it. An instance of a subclass where the declared type shows a
 * non-final class ({@code SpecialTopic} for {@code Topic}) is refused at encoding, because its replay would not be
 * of its class; so are object graphs nested deeper than 500 levels (a cycle among them).
 */
public final class JsonResultCodecProvider implements ResultCodecProvider {
    /** The codec's name, which {@code idem.codec} and {@code @Idempotent(codec)} select. */
    public static final String NAME = "json";
    /** The version of the stored form described above. */
    public static final int FORMAT_VERSION = 1;
    /** Above the core's {@code java} codec (0), so that adding this module makes JSON the default. */
    public static final int PRIORITY = 100;

    /** The application's own modules, added to every codec's mapper before the codec's; none by default. */
    private final List<JacksonModule> modules;

    /** Made by {@link java.util.ServiceLoader}; adds no module of the application's. */
    public JsonResultCodecProvider() {
        this.modules = List.of();
    }

    private JsonResultCodecProvider(List<JacksonModule> modules) {
        this.modules = modules;
    }

    /**
     * A json codec that also writes and reads the application's types with {@code modules} (its own serializers and
     * deserializers, such as those of the application's {@code JsonMapper}). Only modules are taken: the codec's
     * settings (property order, dates, enums, inclusion, the refusal of polymorphic types) stay its own, since an
     * application's API settings changing would otherwise change the stored form, and results stored before would
     * replay differently. The modules are added before the codec's own, which keep the last word.
     *
     * @param modules the modules, in the order they are added
     * @return the codec's provider, with the same name, format version and priority as this one
     */
    public static JsonResultCodecProvider withModules(@Nonnull Collection<? extends JacksonModule> modules) {
        return new JsonResultCodecProvider(List.copyOf(modules));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int formatVersion() {
        return FORMAT_VERSION;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /**
     * A codec for results of {@code type}, after checking the whole type as described above. A primitive type is
     * taken as its wrapper, so that a {@code null} (which the engine may hand over for {@code void}) round-trips.
     *
     * @param type   the declared result type, generic where the method declares one
     * @param loader the class loader of the method's class; classes are never looked up by name, but Jackson's type
     *               factory is given it so that anything it resolves comes from the application's classes
     * @return a thread-safe codec with its own Jackson mapper, which lives as long as the codec
     * @throws UnsupportedResultTypeException naming the part of the type that cannot be stored and how to fix it
     */
    @Override
    public ResultCodec forType(Type type, ClassLoader loader) throws UnsupportedResultTypeException {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(loader, "loader");
        JsonMapper mapper = StoredJsonMapper.create(loader, modules);
        JavaType javaType = ResultTypeCheck.check(mapper, boxed(type));
        return new JsonResultCodec(mapper, javaType);
    }

    private static Type boxed(Type type) {
        if (!(type instanceof Class<?> c) || !c.isPrimitive()) {
            return type;
        }
        if (c == void.class) {
            return Void.class;
        }
        if (c == int.class) {
            return Integer.class;
        }
        if (c == long.class) {
            return Long.class;
        }
        if (c == boolean.class) {
            return Boolean.class;
        }
        if (c == double.class) {
            return Double.class;
        }
        if (c == float.class) {
            return Float.class;
        }
        if (c == short.class) {
            return Short.class;
        }
        if (c == byte.class) {
            return Byte.class;
        }
        return Character.class;
    }

    @Override
    public String toString() {
        return "json result codec (Jackson 3, format " + FORMAT_VERSION + ")"
                + (modules.isEmpty() ? "" : " with the application's modules " + modules);
    }
}
