package dev.idem.core.internal.key;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;

/**
 * Writes a record or a plain object in the canonical form: {@link CanonicalEncoder#OBJECT}, the number of fields,
 * then for each field in {@link ObjectLayout}'s order (sorted by name) its name as text and its value encoded as
 * any value is. Two ways write the same bytes:
 * <ul>
 *   <li>{@link #writeFields}, the general way, for any layout: each field read through reflection, a reference
 *   field's value encoded by its class (with the canonicalisers, and the field's last class remembered, since a
 *   field nearly always holds one class).</li>
 *   <li>{@link #writeFlat}, for a {@link ObjectLayout#flat} layout with no canonicalisers: through the class's
 *   {@link FlatWriter} once the class is hot, field by field before. A flat object's fields hold no object that
 *   could lead back to it, so it needs no cycle check.</li>
 * </ul>
 * Stateless: the encoder it is given holds the bytes.
 */
final class ObjectWriter {

    private ObjectWriter() {
    }

    /** Writes {@code value}, of {@code layout}'s class, field by field. */
    static void writeFields(CanonicalEncoder out, Object value, ObjectLayout layout) {
        if (layout.inaccessible != null) {
            throw layout.inaccessible;
        }
        Field[] fields = layout.fields;
        byte[] kinds = layout.kinds;
        if (fields.length == 0) {
            out.writeByte(CanonicalEncoder.OBJECT);
            out.writeInt(0);
            return;
        }
        for (int i = 0; i < fields.length; i++) {
            byte[] prefix = layout.prefixes[i]; // the name's length and UTF-8 bytes (and the tag), prepared once
            out.writeBytes(prefix, 0, prefix.length);
            try {
                writeField(out, kinds[i], fields[i], value, layout, i);
            } catch (IllegalAccessException e) {
                throw new UnencodableValueException("cannot read field " + fields[i].getName() + ": "
                        + e.getMessage());
            }
        }
    }

    /** Writes field {@code i} of {@code owner}, read as its {@code kind} (decided once, by the layout) says. */
    private static void writeField(CanonicalEncoder out, byte kind, Field field, Object owner, ObjectLayout layout,
                                   int i) throws IllegalAccessException {
        switch (kind) {
            case ObjectLayout.INT:
                out.writeInteger(field.getInt(owner));
                return;
            case ObjectLayout.LONG:
            case ObjectLayout.SMALL_INTEGRAL:
                out.writeInteger(field.getLong(owner));
                return;
            case ObjectLayout.BOOLEAN:
                out.writeBoolean(field.getBoolean(owner));
                return;
            case ObjectLayout.DOUBLE:
                out.writeFloating(field.getDouble(owner));
                return;
            case ObjectLayout.FLOAT:
                out.writeFloating(field.getFloat(owner));
                return;
            case ObjectLayout.CHAR:
                out.writeByte(CanonicalEncoder.CHAR);
                out.writeChar(field.getChar(owner));
                return;
            default: // REFERENCE; and STRING and ENUM when canonicalisers send a flat object here
                Object fieldValue = field.get(owner);
                if (fieldValue == null || fieldValue.getClass() == String.class || out.canonicalizes()) {
                    out.encode(fieldValue); // its own fast path for strings, and the canonicalisers' lookup
                    return;
                }
                TypeEntry seen = layout.lastTypes[i];
                if (seen == null || seen.type != fieldValue.getClass()) {
                    seen = TypeEntry.of(fieldValue.getClass());
                    layout.lastTypes[i] = seen;
                }
                out.encodeAs(fieldValue, seen);
        }
    }

    /** Writes {@code value}, of {@code layout}'s flat class: the bytes {@link #writeFields} writes for it. */
    static void writeFlat(CanonicalEncoder out, Object value, ObjectLayout layout) {
        MethodHandle writer = layout.flatWriter();
        if (writer == null) {
            writeFlatFields(out, value, layout);
            return;
        }
        try {
            writer.invokeExact(out, value);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("a flat writer threw " + t, t); // its parts declare nothing checked
        }
    }

    /** {@link #writeFlat} through reflection: what {@link FlatWriter} does, a field at a time. */
    private static void writeFlatFields(CanonicalEncoder out, Object value, ObjectLayout layout) {
        Field[] fields = layout.fields;
        byte[] kinds = layout.kinds;
        ConstantBytes[] prefixes = layout.taggedPrefixes;
        int i = 0;
        try {
            for (; i < fields.length; i++) {
                out.writeConstant(prefixes[i]);
                Field field = fields[i];
                switch (kinds[i]) {
                    case ObjectLayout.INT:
                    case ObjectLayout.LONG:
                    case ObjectLayout.SMALL_INTEGRAL:
                        out.writeLong(field.getLong(value)); // widened, as every integral number is encoded
                        break;
                    case ObjectLayout.BOOLEAN:
                        out.writeBoolean(field.getBoolean(value));
                        break;
                    case ObjectLayout.DOUBLE:
                    case ObjectLayout.FLOAT:
                        out.writeFloatingBits(field.getDouble(value));
                        break;
                    case ObjectLayout.CHAR:
                        out.writeChar(field.getChar(value));
                        break;
                    case ObjectLayout.STRING:
                        out.writeTextOrNull((String) field.get(value));
                        break;
                    default: // ENUM
                        Enum<?> constant = (Enum<?>) field.get(value);
                        out.writeTextOrNull(constant == null ? null : constant.name());
                }
            }
        } catch (IllegalAccessException e) {
            throw new UnencodableValueException("cannot read field " + fields[i].getName() + ": " + e.getMessage());
        }
    }
}
