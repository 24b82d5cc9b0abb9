package dev.idem.core.internal.key;

import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
        }
        return REFERENCE;
    }
}
