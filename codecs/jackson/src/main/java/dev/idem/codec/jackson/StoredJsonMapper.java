package dev.idem.codec.jackson;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DatabindContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.JacksonAnnotationIntrospector;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;
import tools.jackson.databind.type.TypeFactory;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * The one configuration of Jackson that stored results are written and read with. Every setting that decides the
 * bytes is set here explicitly, not left to Jackson's defaults, so a Jackson upgrade that changes a default does not
 * change the stored form; each is explained where it is set.
 *
 * <p>Each codec gets a mapper of its own ({@link #create}): Jackson caches the serializers and deserializers it
 * builds, with the application's classes in them, and a mapper shared by every codec would keep a discarded class
 * loader (a redeployed application, a dev-tools restart) alive for as long as the engine lives. A codec's mapper
 * lives as long as the codec, that is as long as the engine keeps the method's plan. Building one and checking the
 * type costs a few milliseconds, once per method.
 */
final class StoredJsonMapper {
    /**
     * The deepest nesting of arrays and objects read or written. Reading refuses deeper bodies at once (a nesting bomb
     * costs microseconds, never a stack overflow), and writing refuses the same depth, so that whatever is stored can
     * be read back, and a cyclic object graph fails encoding instead of overflowing the stack.
     */
    static final int MAX_NESTING_DEPTH = 500;

    private StoredJsonMapper() {
    }

    static JsonMapper create(ClassLoader loader) {
        return create(loader, List.of());
    }

    /**
     * The mapper, with {@code modules} (an application's serializers and deserializers for its own types) added before
     * the codec's own, which therefore have the last word on what is written and what is refused.
     */
    static JsonMapper create(ClassLoader loader, List<JacksonModule> modules) {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING_DEPTH)
                        // A string can be no longer than the body, which the store has already handed over whole, so
                        // a length limit protects nothing here; Jackson's default (100 M characters) would only make
                        // a large byte[] result (base64) impossible to read back after it was stored.
                        .maxStringLength(Integer.MAX_VALUE)
                        // Numbers stay limited (Jackson's 1000 digits): parsing a huge number costs more than linear
                        // time, which a poisoned body could use.
                        .build())
                .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
                .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION) // error messages quote no stored data
                .build();
        return JsonMapper.builder(factory)
                // Classes are never looked up by name (no type ids, no Class values), but if Jackson ever needs to,
                // it resolves them where the method's own classes are.
                .typeFactory(TypeFactory.createDefaultInstance().withClassLoader(loader))

                // --- Data, not code: the bytes never choose a class. Default typing is off (Jackson's default, and
                // never activated here); types annotated for polymorphism are refused when the method is planned
                // (ResultTypeCheck); and should one get through, this validator denies every subtype a type id names.
                .addModules(modules)
                .polymorphicTypeValidator(DenyAllSubtypes.INSTANCE)
                .deactivateDefaultTyping()
                // Write what the declared type shows (a property declared Topic is written as a Topic), which is what
                // decoding reads back; SubtypeGuard refuses a value whose class the declared type does not show.
                .enable(MapperFeature.USE_STATIC_TYPING)
                .addModule(SubtypeGuard.module())
                .addModule(UntypedParts.module())
                .filterProvider(SubtypeGuard.filters())
                .annotationIntrospector(new CompleteValues())
                // Jackson modules found on the class path could change the stored form behind the codec's back, so
                // none is looked for; the ones needed (java.time, Optional) are built into Jackson 3, and an
                // application's own come only as it hands them over (JsonResultCodecProvider.withModules).

                // --- Reading: a property the type no longer has is ignored, so a release that removed a field still
                // reads results stored before; a constructor parameter (a record component) missing from the body is
                // an error, not a silent null, because the replay would not be what the method returned.
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                // Floating-point numbers in Object-typed parts read as Double, integers as Integer/Long/BigInteger:
                // JSON's natural Java types. A declared BigDecimal reads exactly (its text, scale included).
                .disable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .disable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
                // BigDecimal as written by toString(): 1.10 stays 1.10 and 1E+3 stays 1E+3, so the replay is equal
                // (BigDecimal.equals compares scale too).
                .disable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)

                // --- Enums by name(): toString() is for people and may change; names are what other languages and
                // operators read. A number is not accepted for an enum (no ordinals, which reorder silently).
                .disable(EnumFeature.WRITE_ENUMS_USING_TO_STRING, EnumFeature.READ_ENUMS_USING_TO_STRING,
                        EnumFeature.WRITE_ENUMS_USING_INDEX, EnumFeature.WRITE_ENUM_KEYS_USING_INDEX,
                        EnumFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL,
                        EnumFeature.READ_UNKNOWN_ENUM_VALUES_USING_DEFAULT_VALUE)
                .enable(EnumFeature.FAIL_ON_NUMBERS_FOR_ENUMS)

                // --- java.time as ISO-8601 strings with full precision, zones kept as written: readable by operators
                // and other languages, and equal on replay (an Instant keeps its nanoseconds, a ZonedDateTime its
                // region, an OffsetDateTime its offset).
                .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS, DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS,
                        DateTimeFeature.WRITE_DATE_KEYS_AS_TIMESTAMPS, DateTimeFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE,
                        DateTimeFeature.WRITE_DATES_WITH_CONTEXT_TIME_ZONE, DateTimeFeature.NORMALIZE_DESERIALIZED_ZONE_ID,
                        DateTimeFeature.TRUNCATE_TO_MSECS_ON_WRITE, DateTimeFeature.TRUNCATE_TO_MSECS_ON_READ)
                .enable(DateTimeFeature.WRITE_DATES_WITH_ZONE_ID)

                // --- Writing: compact, stable property order.
                .disable(SerializationFeature.INDENT_OUTPUT, SerializationFeature.WRAP_ROOT_VALUE)
                .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                .build();
    }

    /**
     * Jackson's annotations, except those that would leave values out of the stored form: {@code @JsonInclude}
     * (typically {@code NON_NULL}, meant for an API's output) is ignored, so every property is written, null or empty
     * included, and a replay gets back exactly what was stored instead of a missing property.
     */
    private static final class CompleteValues extends JacksonAnnotationIntrospector {
        private static final long serialVersionUID = 1L;

        @Override
        public JsonInclude.Value findPropertyInclusion(MapperConfig<?> config, Annotated a) {
            return JsonInclude.Value.empty();
        }
    }

    /** Refuses every subtype a type id could name; Idem's bodies carry no type ids. */
    private static final class DenyAllSubtypes extends PolymorphicTypeValidator {
        private static final long serialVersionUID = 1L;
        static final DenyAllSubtypes INSTANCE = new DenyAllSubtypes();

        @Override
        public Validity validateBaseType(DatabindContext ctxt, JavaType baseType) {
            // INDETERMINATE, not DENIED: the type is then refused by ResultTypeCheck with a message that says why,
            // instead of by Jackson while it builds the deserializer.
            return Validity.INDETERMINATE;
        }

        @Override
        public Validity validateSubClassName(DatabindContext ctxt, JavaType baseType, String subClassName) {
            return Validity.DENIED;
        }

        @Override
        public Validity validateSubType(DatabindContext ctxt, JavaType baseType, JavaType subType) {
            return Validity.DENIED;
        }
    }
}
