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
    final Field[] fields;
    /** Per field: its name's UTF-8 length (four bytes, big-endian) followed by the name's bytes. */
    final byte[][] nameHeaders;
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
        this.nameHeaders = new byte[fields.length][];
        for (int i = 0; i < fields.length; i++) {
            byte[] name = fields[i].getName().getBytes(StandardCharsets.UTF_8);
            byte[] header = ByteBuffer.allocate(4 + name.length).putInt(name.length).put(name).array();
            nameHeaders[i] = header;
        }
        this.inaccessible = failure;
    }
}
