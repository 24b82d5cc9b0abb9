package dev.idem.core.internal.key;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The fields a record or plain object is encoded by, sorted by name, with reflective access prepared once per
 * class. Records are read through their component fields (the same values the accessors return for records that
 * do not override them) so that encoding never runs user code.
 */
final class ObjectLayout {
    /** How a field's value is read and written, decided once per field from its declared type. */
    static final byte REFERENCE = 0;
    static final byte INT = 1;
    static final byte LONG = 2;
    static final byte BOOLEAN = 3;
    static final byte DOUBLE = 4;
    static final byte FLOAT = 5;
    /** {@code short} and {@code byte}: read widened to long, encoded as every integral number is. */
    static final byte SMALL_INTEGRAL = 6;
    static final byte CHAR = 7;
    /** A field declared {@code String}: its value is a String or null, so it needs no class lookup. */
    static final byte STRING = 8;
    /** A field declared as an enum type: its value is one of the enum's constants or null. */
    static final byte ENUM = 9;

    final Field[] fields;
    /** Per field: one of the codes above, so encoding a value does no comparison chain over its field's type. */
    final byte[] kinds;
    /**
     * Per field: the bytes written before its value, its name's UTF-8 length (four bytes, big-endian) and the
     * name's bytes; the first field's are preceded by the object's tag and field count, so that an object costs
     * one copy a field. An object without fields is written as its tag and a count of zero.
     */
    final byte[][] prefixes;
    /**
     * Per reference field: the class its value had last time (a benign race: any entry read is a correct one), so
     * a field that always holds one class costs no class lookup per value, as {@link KeySource#lastType} does for
     * parameters.
     */
    final TypeEntry[] lastTypes;
    final RuntimeException inaccessible;
    /**
     * Whether the object is written by the encoder's flat path: it has fields, all of them can be read, and each is
     * a primitive, a String or an enum by its declared type. Such an object holds nothing that could lead back to
     * it, so it needs no cycle check, and no value of it needs a class lookup.
     */
    final boolean flat;
    /**
     * How many objects of a flat class may be written field by field through reflection before its
     * {@link FlatWriter} is composed: composing costs about a millisecond (the JDK spins classes for new shapes of
     * handles), which a class encoded a few times never repays, while a hot one repays it within a few thousand
     * calls.
     */
    static final int COMPOSE_WRITER_AFTER = 256;
    /** Objects written so far without the writer (a racy count: a lost increment composes a little later). */
    private int writtenWithoutWriter;
    /**
     * The {@link FlatWriter} of this flat class, once composed; a plain field, since a method handle is immutable
     * and safely published through its final fields (two threads may compose two equal writers; either serves).
     */
    private MethodHandle flatWriter;
    /** Set when the writer could not be composed: the fields are then always read through reflection. */
    private boolean noFlatWriter;
    /**
     * Per field of a flat layout (else null): {@link #prefixes} followed by the tag of the field's value where the
     * kind fixes it (integral numbers, floating numbers, chars, strings and enums; a null string or enum has its tag
     * replaced by the null tag), so a field costs one copy before its value.
     */
    final ConstantBytes[] taggedPrefixes;

    ObjectLayout(Class<?> type) {
        List<Field> found = new ArrayList<>();
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                try {
                    found.add(type.getDeclaredField(component.getName()));
                } catch (NoSuchFieldException e) {
                    throw new IllegalStateException("record " + type.getName() + " lacks its component field", e);
                }
            }
        } else {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field field : c.getDeclaredFields()) {
                    int modifiers = field.getModifiers();
                    if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers) && !field.isSynthetic()) {
                        found.add(field);
                    }
                }
            }
        }
        found.sort(Comparator.comparing(Field::getName).thenComparing(f -> f.getDeclaringClass().getName()));
        RuntimeException failure = null;
        for (Field field : found) {
            try {
                field.setAccessible(true);
            } catch (InaccessibleObjectException | SecurityException e) {
                failure = new UnencodableValueException("cannot read field " + field.getName() + " of "
                        + type.getName() + " (" + e.getMessage() + "); open its package to Idem or register a"
                        + " canonicaliser for the type");
                break;
            }
        }
        this.fields = found.toArray(new Field[0]);
        this.kinds = new byte[fields.length];
        this.prefixes = new byte[fields.length][];
        this.lastTypes = new TypeEntry[fields.length];
        for (int i = 0; i < fields.length; i++) {
            kinds[i] = kindOf(fields[i].getType());
            byte[] name = fields[i].getName().getBytes(StandardCharsets.UTF_8);
            ByteBuffer prefix = ByteBuffer.allocate((i == 0 ? 5 : 0) + 4 + name.length);
            if (i == 0) {
                prefix.put(CanonicalEncoder.OBJECT).putInt(fields.length);
            }
            prefixes[i] = prefix.putInt(name.length).put(name).array();
        }
        this.inaccessible = failure;
        this.flat = failure == null && fields.length > 0 && allFlat(kinds);
        this.taggedPrefixes = flat ? tagged(prefixes, kinds) : null;
    }

    /**
     * The writer of this flat class's objects, or null while they are still to be written through reflection: the
     * first {@value #COMPOSE_WRITER_AFTER} calls count, the next composes it.
     */
    MethodHandle flatWriter() {
        MethodHandle writer = flatWriter;
        if (writer != null || noFlatWriter) {
            return writer;
        }
        if (writtenWithoutWriter < COMPOSE_WRITER_AFTER) {
            writtenWithoutWriter++;
            return null;
        }
        writer = FlatWriter.of(fields, kinds, taggedPrefixes);
        if (writer == null) {
            noFlatWriter = true;
        }
        flatWriter = writer;
        return writer;
    }

    private static boolean allFlat(byte[] kinds) {
        for (byte kind : kinds) {
            if (kind == REFERENCE) {
                return false;
            }
        }
        return true;
    }

    private static ConstantBytes[] tagged(byte[][] prefixes, byte[] kinds) {
        ConstantBytes[] tagged = new ConstantBytes[prefixes.length];
        for (int i = 0; i < prefixes.length; i++) {
            byte tag = valueTag(kinds[i]);
            byte[] prefix = prefixes[i];
            byte[] withTag = tag == NO_TAG ? prefix : Arrays.copyOf(prefix, prefix.length + 1);
            if (tag != NO_TAG) {
                withTag[prefix.length] = tag;
            }
            tagged[i] = new ConstantBytes(withTag);
        }
        return tagged;
    }

    private static final byte NO_TAG = -1;

    /** The tag every value of a field of {@code kind} starts with, as the encoder writes it; a boolean has none. */
    private static byte valueTag(byte kind) {
        switch (kind) {
            case INT:
            case LONG:
            case SMALL_INTEGRAL:
                return CanonicalEncoder.INTEGER;
            case DOUBLE:
            case FLOAT:
                return CanonicalEncoder.FLOATING;
            case CHAR:
                return CanonicalEncoder.CHAR;
            case STRING:
                return CanonicalEncoder.STRING;
            case ENUM:
                return CanonicalEncoder.ENUM;
            default:
                return NO_TAG; // a boolean's value is its tag
        }
    }

    private static byte kindOf(Class<?> type) {
        if (type == int.class) {
            return INT;
        } else if (type == long.class) {
            return LONG;
        } else if (type == boolean.class) {
            return BOOLEAN;
        } else if (type == double.class) {
            return DOUBLE;
        } else if (type == float.class) {
            return FLOAT;
        } else if (type == short.class || type == byte.class) {
            return SMALL_INTEGRAL;
        } else if (type == char.class) {
            return CHAR;
        } else if (type == String.class) {
            return STRING;
        } else if (type.isEnum() && !CharSequence.class.isAssignableFrom(type)) {
            return ENUM; // an enum that is also a CharSequence is encoded as text (ValueKind): left to the lookup
        }
        return REFERENCE;
    }
}
