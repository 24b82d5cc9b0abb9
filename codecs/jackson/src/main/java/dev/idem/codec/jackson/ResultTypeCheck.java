package dev.idem.codec.jackson;

import dev.idem.codec.UnsupportedResultTypeException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.deser.std.ContainerDeserializerBase;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.PropertyWriter;
import tools.jackson.databind.ser.bean.BeanSerializerBase;
import tools.jackson.databind.ser.impl.UnknownSerializer;
import tools.jackson.databind.ser.std.ToEmptyObjectSerializer;

import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Year;
import java.time.YearMonth;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Decides, when a method is planned, whether its declared result type can be stored as JSON and replayed equal: the
 * whole type, through type arguments, array components, record components and bean properties, using the serializers
 * and deserializers Jackson itself builds for it (eagerly, here, so that a failure is a configuration error of the
 * method and not an error of its first call).
 *
 * <p>Refused, each with the part at fault and the fix:
 * <ul>
 *   <li>a type variable with no bound ({@code <T> T find()}): the bytes cannot say what {@code T} was at the call;</li>
 *   <li>an abstract class or interface Jackson has no implementation for: JSON names no class to build, on purpose;</li>
 *   <li>a type annotated for polymorphism ({@code @JsonTypeInfo}, on the class or on a property): its bytes would name
 *       the class to instantiate;</li>
 *   <li>{@code Class}: decoding it loads (and initialises) the class the bytes name;</li>
 *   <li>a class without a creator Jackson can use, or whose state Jackson cannot see or cannot set back (a constructor
 *       parameter that is never written, a field written through a getter that nothing reads back, a class showing no
 *       property at all while it has fields);</li>
 *   <li>map keys other than strings, numbers, enums, UUIDs and a few {@code java.time} values: JSON keys are strings,
 *       and other types' key forms (their {@code toString()}) do not read back.</li>
 * </ul>
 * {@code Object} is accepted: its parts decode to JSON's natural Java types (maps, lists, strings, numbers, booleans).
 */
final class ResultTypeCheck {
    /** Map key types whose JSON key form Jackson reads back into an equal key. Enums are accepted too. */
    private static final Set<Class<?>> KEY_TYPES = Set.of(String.class, Object.class, CharSequence.class,
            Integer.class, Long.class, Short.class, Byte.class, Character.class, Boolean.class, Double.class,
            Float.class, BigInteger.class, BigDecimal.class, UUID.class, LocalDate.class, LocalDateTime.class,
            LocalTime.class, Instant.class, Year.class, YearMonth.class, Duration.class);

    private static final String KEY_ADVICE = "Use String, a number, an enum, a UUID or a LocalDate/LocalDateTime/Instant"
            + " key, or store a List of entries";

    private static final String POLYMORPHIC = "it is polymorphic (@JsonTypeInfo, on it or a supertype), so its JSON"
            + " would name the type to instantiate, which stored bytes never do. Declare a class without @JsonTypeInfo,"
            + " or store this method's results with the java codec (@Idempotent(codec = \"java\"))";

    private final DeserializationContext readContext;
    private final SerializationContext writeContext;
    private final String declared;
    private final Set<JavaType> seen = new HashSet<>();

    private ResultTypeCheck(JsonMapper mapper, String declared) {
        this.readContext = mapper._deserializationContext();
        this.writeContext = mapper._serializationContext();
        this.declared = declared;
    }

    /**
     * The Jackson type of {@code type} once it is known that the codec can store and replay it.
     *
     * @throws UnsupportedResultTypeException naming the part of the type at fault and the fix
     */
    static JavaType check(JsonMapper mapper, Type type) throws UnsupportedResultTypeException {
        String declared = type.getTypeName();
        refuseUnboundTypeVariables(type, declared, new HashSet<>());
        JavaType javaType = mapper.getTypeFactory().constructType(type);
        ResultTypeCheck check = new ResultTypeCheck(mapper, declared);
        // The declared type's own structure first, so that its faults are named where they are; Jackson would
        // refuse some of them (a map key type) while building the root deserializer, naming less.
        check.visitStructure(javaType, "the result");
        try {
            ValueDeserializer<Object> root = check.readContext.findRootValueDeserializer(javaType);
            check.visit(javaType, root, "the result");
            // Builds and resolves the serializers of the whole static type (static typing is on).
            check.writeContext.findTypedValueSerializer(javaType, true);
        } catch (JacksonException e) {
            String message = e.getOriginalMessage();
            throw check.refuse("the result", javaType, "Jackson cannot handle it: " + message + ". "
                    + (message != null && message.contains("Key deserializer") ? KEY_ADVICE
                    : "Make the classes of the result records, or plain classes with a creator and accessors Jackson"
                    + " can use"));
        }
        return javaType;
    }

    private static void refuseUnboundTypeVariables(Type type, String declared, Set<Type> seen)
            throws UnsupportedResultTypeException {
        if (!seen.add(type)) {
            return;
        }
        if (type instanceof TypeVariable<?> variable) {
            Type[] bounds = variable.getBounds();
            if (bounds.length == 1 && bounds[0] == Object.class) {
                throw new UnsupportedResultTypeException("json cannot store results of type " + declared + ": "
                        + variable.getName() + " is a type variable the caller chooses, and stored JSON cannot say what "
                        + "it was at the call. Declare a concrete type (or a bound, whose class is what replays)");
            }
            for (Type bound : bounds) {
                refuseUnboundTypeVariables(bound, declared, seen);
            }
        } else if (type instanceof ParameterizedType parameterized) {
            for (Type argument : parameterized.getActualTypeArguments()) {
                refuseUnboundTypeVariables(argument, declared, seen);
            }
        } else if (type instanceof GenericArrayType array) {
            refuseUnboundTypeVariables(array.getGenericComponentType(), declared, seen);
        } else if (type instanceof WildcardType wildcard) {
            for (Type bound : wildcard.getUpperBounds()) {
                refuseUnboundTypeVariables(bound, declared, seen);
            }
        }
    }

    /** Checks, through type arguments and array components only, what needs no Jackson (de)serializer. */
    private void visitStructure(JavaType type, String where) throws UnsupportedResultTypeException {
        refuseClass(type, where);
        if (type.isMapLikeType()) {
            refuseKey(type.getKeyType(), where + " key");
        }
        if (type.isContainerType()) {
            visitStructure(type.getContentType(), where + (type.isMapLikeType() ? " value" : " element"));
        } else if (type.isReferenceType()) {
            visitStructure(type.getReferencedType(), where + " content");
        }
    }

    private void refuseClass(JavaType type, String where) throws UnsupportedResultTypeException {
        if (type.getRawClass() == Class.class) {
            throw refuse(where, type, "decoding a Class loads the class the stored bytes name. Store the class's name"
                    + " as a String and look it up among the classes you expect");
        }
    }

    private void refuseKey(JavaType key, String where) throws UnsupportedResultTypeException {
        if (!key.isEnumType() && !KEY_TYPES.contains(key.getRawClass())) {
            throw refuse(where, key, "JSON object keys are strings, and this type's key form does not read back. "
                    + KEY_ADVICE);
        }
    }

    /**
     * @param deserializer the deserializer Jackson built for {@code type} where it stands, or null to look it up
     * @param where        the part of the declared type, for messages ({@code the result}, {@code Topic.author})
     */
    private void visit(JavaType type, ValueDeserializer<?> deserializer, String where)
            throws UnsupportedResultTypeException {
        if (!seen.add(type)) {
            return;
        }
        refuseClass(type, where);
        try {
            if (readContext.findTypeDeserializer(type) != null) {
                throw refuse(where, type, POLYMORPHIC);
            }
            if (deserializer == null) {
                deserializer = readContext.findContextualValueDeserializer(type, null);
            }
        } catch (JacksonException e) {
            throw refuse(where, type, "Jackson cannot read it: " + e.getOriginalMessage());
        }
        if (deserializer instanceof AbstractDeserializer) {
            throw refuse(where, type, "it is " + (type.isInterface() ? "an interface" : "an abstract class")
                    + " Jackson has no implementation for, and stored JSON names no class to build. Declare a concrete"
                    + " class or a record");
        }
        if (type.isMapLikeType()) {
            refuseKey(type.getKeyType(), where + " key");
        }
        if (type.isContainerType()) {
            ValueDeserializer<?> content = deserializer instanceof ContainerDeserializerBase<?> container
                    ? container.getContentDeserializer() : null;
            visit(type.getContentType(), content, where + (type.isMapLikeType() ? " value" : " element"));
        } else if (type.isReferenceType()) {
            visit(type.getReferencedType(), null, where + " content");
        } else if (deserializer instanceof BeanDeserializerBase bean) {
            visitBean(type, bean);
        }
    }

    private void visitBean(JavaType type, BeanDeserializerBase bean) throws UnsupportedResultTypeException {
        String name = simpleName(type);
        ValueInstantiator instantiator = bean.getValueInstantiator();
        if (!instantiator.canInstantiate()) {
            throw refuse(name, type, "it has no creator Jackson can use. Make it a record, give it a no-argument"
                    + " constructor, or annotate a constructor with @JsonCreator (with -parameters or"
                    + " @JsonProperty names)");
        }
        Map<String, SettableBeanProperty> readable = new LinkedHashMap<>();
        bean.properties().forEachRemaining(p -> readable.put(p.getName(), p));
        bean.creatorProperties().forEachRemaining(p -> readable.putIfAbsent(p.getName(), p));
        Set<String> written = writtenProperties(type);

        for (SettableBeanProperty property : readable.values()) {
            String where = name + "." + property.getName();
            if (property.hasValueTypeDeserializer() || (property.getMember() != null
                    && (property.getType().isContainerType() || property.getType().isReferenceType())
                    && readContext.findPropertyContentTypeDeserializer(property.getType(), property.getMember()) != null)) {
                throw refuse(where, property.getType(), POLYMORPHIC);
            }
            if (property.isCreatorProperty() && property.getInjectableValueId() == null && written != null
                    && !written.contains(property.getName())) {
                throw refuse(where, property.getType(), "it is a constructor parameter (or record component) that"
                        + " Jackson never writes (ignored, or without an accessor), so no stored result could be read"
                        + " back. Give it an accessor, or remove @JsonIgnore");
            }
            visit(property.getType(), property.hasValueDeserializer() ? property.getValueDeserializer() : null, where);
        }
        if (instantiator.canCreateUsingDelegate()) {
            visit(instantiator.getDelegateType(readContext.getConfig()), null, name + " (its @JsonCreator delegate)");
        }

        if (written == null || type.isRecordType()) {
            return;
        }
        Set<String> fields = instanceFields(type.getRawClass());
        if (readable.isEmpty() && (!written.isEmpty() || !fields.isEmpty())) {
            throw refuse(name, type, "Jackson finds no property it could set on it, so every replay would lose its"
                    + " state. Make it a record, or give it setters (or public fields, or a @JsonCreator constructor)"
                    + " for " + (written.isEmpty() ? fields : written));
        }
        Set<String> lost = written.stream().filter(fields::contains).filter(p -> !readable.containsKey(p))
                .collect(Collectors.toCollection(LinkedHashSet::new));
        if (!lost.isEmpty()) {
            throw refuse(name + "." + lost.iterator().next(), type, "its value is written but nothing reads it back"
                    + " (no setter, non-final field or constructor parameter), so every replay would lose it. Add a"
                    + " setter or a constructor parameter, or mark the getter @JsonIgnore if the value is derived");
        }
    }

    /** The names of the properties Jackson writes for a bean type, or null when it is not written as a bean. */
    private Set<String> writtenProperties(JavaType type) {
        ValueSerializer<Object> serializer = writeContext.findValueSerializer(type);
        if (serializer instanceof UnknownSerializer || serializer instanceof ToEmptyObjectSerializer) {
            return Set.of(); // a class that shows Jackson no property at all
        }
        if (!(serializer instanceof BeanSerializerBase bean)) {
            return null;
        }
        Set<String> names = new LinkedHashSet<>();
        for (var it = bean.properties(); it.hasNext(); ) {
            PropertyWriter property = it.next();
            names.add(property.getName());
        }
        return names;
    }

    private static Set<String> instanceFields(Class<?> type) {
        Set<String> names = new LinkedHashSet<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                int modifiers = field.getModifiers();
                if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers) && !field.isSynthetic()) {
                    names.add(field.getName());
                }
            }
        }
        return names;
    }

    private UnsupportedResultTypeException refuse(String where, JavaType type, String why) {
        String part = where.equals(simpleName(type)) ? type.getRawClass().getName()
                : where + " (" + type.toCanonical() + ")";
        return new UnsupportedResultTypeException("json cannot store results of type " + declared + ": " + part
                + ": " + why);
    }

    private static String simpleName(JavaType type) {
        return type.getRawClass().getSimpleName();
    }
}
