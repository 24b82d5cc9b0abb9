package dev.idem.core.internal.key;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;

/**
 * The writer of a flat class's objects ({@link ObjectLayout#flat}): one method handle, composed once per class when
 * the class is hot ({@link ObjectLayout#flatWriter()}), that writes each field's tagged name and then its value read
 * straight from the field, in the layout's order. It writes exactly the bytes {@link ObjectWriter#writeFields} writes
 * for such an object.
 *
 * <h2>Why a method handle</h2>
 * Read through {@link Field}, every value costs the reflective checks of an accessor the JIT cannot see through
 * when several classes are encoded; and a loop over the fields dispatches on each field's kind. Composed into one
 * handle, the reads are the fields' own getters and the kinds are settled when the handle is made: once the handle
 * has been called a few times the JDK compiles it for itself (its parts become constants), so a call is one
 * indirect call into straight-line code.
 *
 * <p>The handle refers to the class only through its fields' getters, and is held by the class's own layout, so it
 * keeps no class loader alive that the class would not.
 */
final class FlatWriter {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    /** What every writer is: {@code (encoder, object) -> void}. */
    static final MethodType TYPE = MethodType.methodType(void.class, CanonicalEncoder.class, Object.class);
    private static final MethodHandle WRITE_CONSTANT;
    private static final MethodHandle WRITE_LONG;
    private static final MethodHandle WRITE_BOOLEAN;
    private static final MethodHandle WRITE_FLOATING_BITS;
    private static final MethodHandle WRITE_CHAR;
    private static final MethodHandle WRITE_TEXT;
    private static final MethodHandle NAME_OR_NULL;

    static {
        try {
            Class<CanonicalEncoder> e = CanonicalEncoder.class;
            WRITE_CONSTANT = LOOKUP.findVirtual(e, "writeConstant", MethodType.methodType(void.class,
                    ConstantBytes.class));
            WRITE_LONG = LOOKUP.findVirtual(e, "writeLong", MethodType.methodType(void.class, long.class));
            WRITE_BOOLEAN = LOOKUP.findVirtual(e, "writeBoolean", MethodType.methodType(void.class, boolean.class));
            WRITE_FLOATING_BITS = LOOKUP.findVirtual(e, "writeFloatingBits", MethodType.methodType(void.class,
                    double.class));
            WRITE_CHAR = LOOKUP.findVirtual(e, "writeChar", MethodType.methodType(void.class, char.class));
            WRITE_TEXT = LOOKUP.findVirtual(e, "writeTextOrNull", MethodType.methodType(void.class, String.class));
            NAME_OR_NULL = LOOKUP.findStatic(FlatWriter.class, "nameOrNull", MethodType.methodType(String.class,
                    Enum.class));
        } catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private FlatWriter() {
    }

    /**
     * The writer of objects whose fields, in order, are {@code fields}, of {@code kinds}, each written after its
     * {@code taggedPrefixes}, as {@link ObjectLayout} describes them; of type {@link #TYPE}. Null when a field's getter
     * cannot be made: the general path then writes the objects, as it does any object.
     */
    static MethodHandle of(Field[] fields, byte[] kinds, ConstantBytes[] taggedPrefixes) {
        if (fields.length == 0) {
            return MethodHandles.empty(TYPE);
        }
        try {
            MethodHandle[] steps = new MethodHandle[fields.length];
            for (int i = 0; i < fields.length; i++) {
                steps[i] = field(fields[i], kinds[i], taggedPrefixes[i]);
            }
            return inOrder(steps, 0, steps.length);
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    /**
     * {@code steps[from..to)} one after the other, joined as a balanced tree: a chain as deep as the class has fields
     * would pass the JIT's inlining depth for a wide class, and its last fields would each cost a call.
     */
    private static MethodHandle inOrder(MethodHandle[] steps, int from, int to) {
        if (to - from == 1) {
            return steps[from];
        }
        int middle = (from + to) >>> 1;
        // foldArguments runs its second handle first, then its first with the same arguments
        return MethodHandles.foldArguments(inOrder(steps, middle, to), inOrder(steps, from, middle));
    }

    /** Writes one field: its tagged name, then its value. */
    private static MethodHandle field(Field field, byte kind, ConstantBytes taggedPrefix)
            throws IllegalAccessException {
        MethodHandle prefix = MethodHandles.dropArguments(
                MethodHandles.insertArguments(WRITE_CONSTANT, 1, taggedPrefix), 1, Object.class);
        MethodHandle getter = LOOKUP.unreflectGetter(field); // the field was made accessible by its layout
        MethodHandle value;
        switch (kind) {
            case ObjectLayout.INT:
            case ObjectLayout.LONG:
            case ObjectLayout.SMALL_INTEGRAL:
                value = MethodHandles.filterArguments(WRITE_LONG, 1, read(getter, long.class));
                break;
            case ObjectLayout.BOOLEAN:
                value = MethodHandles.filterArguments(WRITE_BOOLEAN, 1, read(getter, boolean.class));
                break;
            case ObjectLayout.DOUBLE:
            case ObjectLayout.FLOAT:
                value = MethodHandles.filterArguments(WRITE_FLOATING_BITS, 1, read(getter, double.class));
                break;
            case ObjectLayout.CHAR:
                value = MethodHandles.filterArguments(WRITE_CHAR, 1, read(getter, char.class));
                break;
            case ObjectLayout.STRING:
                value = MethodHandles.filterArguments(WRITE_TEXT, 1, read(getter, String.class));
                break;
            case ObjectLayout.ENUM:
                MethodHandle name = MethodHandles.filterReturnValue(read(getter, Enum.class), NAME_OR_NULL);
                value = MethodHandles.filterArguments(WRITE_TEXT, 1, name);
                break;
            default:
                throw new IllegalArgumentException("not a flat kind: " + kind);
        }
        return MethodHandles.foldArguments(value, prefix);
    }

    /** {@code getter} taking any object (cast to the field's class) and answering as {@code type} (widened). */
    private static MethodHandle read(MethodHandle getter, Class<?> type) {
        return getter.asType(MethodType.methodType(type, Object.class));
    }

    private static String nameOrNull(Enum<?> constant) {
        return constant == null ? null : constant.name();
    }
}
