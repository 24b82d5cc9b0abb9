package dev.idem.core.internal.key;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The canonical encoding of SEMANTICS.md section 2: a deterministic, type-tagged, length-prefixed byte form of a
 * value, so equal values give equal bytes on every JVM and unequal values (including {@code 1} and {@code "1"}, or
 * {@code ["a","b"]} and {@code ["ab"]}) give different bytes. Keys already stored are these bytes' digests, so the
 * format never changes; {@code CanonicalEncodingGoldenTest} pins it.
 *
 * <h2>Format</h2>
 * Every value starts with a one-byte tag. Variable-length parts carry a four-byte length first, so no encoding is a
 * prefix of another. Numbers are big-endian; "text" below is a four-byte length and UTF-8 bytes
 * ({@link EncodingBuffer} writes these primitive forms).
 * <ul>
 *   <li>{@link #NULL}, {@link #FALSE}, {@link #TRUE}: the tag alone.</li>
 *   <li>{@link #INTEGER}: eight bytes, for integral numbers of every width (changing a parameter from {@code int}
 *   to {@code long} keeps its keys), and a {@code BigInteger} that fits in a long; {@link #BIG_INTEGER}: the
 *   length and two's-complement bytes of a larger one.</li>
 *   <li>{@link #FLOATING}: the eight bytes of a double's bits, a float widened, {@code -0.0} as {@code 0.0}, every
 *   NaN as one; {@link #DECIMAL}: a BigDecimal by value ({@code 1.0} = {@code 1.00}), its trailing zeros
 *   stripped: the scale, the length and bytes of the unscaled value.</li>
 *   <li>{@link #CHAR}: the char's two bytes; {@link #STRING}: text, for any {@code CharSequence};
 *   {@link #ENUM}: the constant's name as text; {@link #UUID_TAG}: the two longs.</li>
 *   <li>{@link #TEMPORAL} ({@code java.time}) and {@link #SCALAR} ({@code URI}, {@code Locale}, {@code
 *   Currency}): the class's simple name as text, then the value's ISO or standard form as text (a Locale's
 *   language tag).</li>
 *   <li>{@link #BYTES}: a {@code byte[]}'s length and bytes; {@link #LIST}: the count, then the elements in order,
 *   for lists and other collections, object arrays and other primitive arrays.</li>
 *   <li>{@link #SET}: the count, then the elements' encodings sorted as unsigned bytes; {@link #MAP}: the count,
 *   then each key's encoding and its value's, sorted by the keys' encodings.</li>
 *   <li>{@link #EMPTY}, or {@link #PRESENT} and the value: {@code Optional} and the primitive optionals.</li>
 *   <li>{@link #OBJECT}: records and plain objects, as {@link ObjectWriter} writes them: the field count, then
 *   each field's name as text and its value, the fields sorted by name.</li>
 * </ul>
 * A value with no canonical form (a stream, a lambda, a socket) is refused with {@link UnencodableValueException},
 * as are a cycle and a nesting deeper than {@value EnclosingValues#MAX_DEPTH} levels ({@link EnclosingValues}).
 *
 * <h2>Its parts</h2>
 * This class is the format: it decides a value's kind ({@link TypeEntry}, remembered per parameter and per field)
 * and writes the kind's form. The bytes go into the {@link EncodingBuffer} it extends; their digests, of the whole
 * and of a marked prefix, are an {@link EncodingDigest}'s; a thread reuses one encoder through
 * {@link PerThreadEncoder}, so that deriving a key allocates nothing. Every encoding is one call of
 * {@link #acquire()}, writes, digests, and {@link #release()}.
 *
 * <h2>Nothing of the arguments outlives a call</h2>
 * {@link #release()} zeroes the bytes written and drops the references to the values being encoded, also after
 * an encoding failed half-way, so a thread's scratch space never keeps an argument (or its bytes) alive.
 */
public final class CanonicalEncoder extends EncodingBuffer {
    static final byte NULL = 0;
    static final byte FALSE = 1;
    static final byte TRUE = 2;
    static final byte INTEGER = 3;
    static final byte BIG_INTEGER = 4;
    static final byte FLOATING = 5;
    static final byte DECIMAL = 6;
    static final byte CHAR = 7;
    static final byte STRING = 8;
    static final byte ENUM = 9;
    static final byte UUID_TAG = 10;
    static final byte TEMPORAL = 11;
    static final byte BYTES = 12;
    public static final byte LIST = 13;
    static final byte SET = 14;
    static final byte MAP = 15;
    static final byte EMPTY = 16;
    static final byte PRESENT = 17;
    static final byte OBJECT = 18;
    static final byte SCALAR = 19;

    private final EncodingDigest digest = new EncodingDigest();
    private final EnclosingValues enclosing = new EnclosingValues();
    /** The key a replay looks its result up with, written in place (see {@link CallKey.Probe}). */
    private final CallKey.Probe probe = new CallKey.Probe();
    private Canonicalizers canonicalizers = Canonicalizers.NONE;
    /** Set by {@link PerThreadEncoder} while a caller holds this encoder, cleared by {@link #release()}. */
    boolean lent;

    CanonicalEncoder() {
    }

    /** This thread's encoder, reset; call {@link #release()} exactly once when done with its bytes. */
    public static CanonicalEncoder acquire() {
        return PerThreadEncoder.acquire();
    }

    /**
     * Forgets what was encoded, zeroing its bytes and dropping every reference to the values encoded (also after an
     * encoding failed half-way), and hands the encoder back to its thread.
     */
    public void release() {
        clear();
        probe.clear();
        enclosing.clear();
        digest.reset();
        if (canonicalizers != Canonicalizers.NONE) {
            canonicalizers = Canonicalizers.NONE;
        }
        lent = false;
    }

    /** This encoder's probe: a key to look a result up with, valid until this encoder is released. */
    public CallKey.Probe probe() {
        return probe;
    }

    /** Whether no slot of the cycle check holds a value (for tests: release must leave none). */
    boolean holdsNoValues() {
        return enclosing.holdsNone();
    }

    /** Encodes with {@code registered}'s canonicalisers until release. */
    public CanonicalEncoder using(Canonicalizers registered) {
        if (canonicalizers != registered) { // nearly always NONE already: a reference store costs a GC barrier
            canonicalizers = registered;
        }
        return this;
    }

    /** Whether canonicalisers may replace values (then no class's remembered kind can be trusted alone). */
    boolean canonicalizes() {
        return !canonicalizers.isEmpty();
    }

    /** Goes back to {@code newLength} bytes, forgetting a marked prefix longer than that. */
    public void truncate(int newLength) {
        rewindTo(newLength);
        digest.rewoundTo(newLength);
    }

    /** SHA-256 of the bytes written so far, into a buffer this encoder reuses (valid until its next use). */
    public byte[] sha256() {
        return digest.of(buffer, length);
    }

    /**
     * Marks the bytes written so far as a prefix whose digest {@link #prefixSha256()} will give, without encoding
     * them again: the key's encoding begins with the payload's when the two are the same parameters.
     */
    public void markPrefix() {
        digest.markPrefix(buffer, length);
    }

    /** SHA-256 of the prefix marked by {@link #markPrefix()}, as a new array. */
    public byte[] prefixSha256() {
        return digest.prefix(buffer);
    }

    /**
     * Encodes a parameter's value, reusing {@code source}'s record of the class it last saw, since a parameter
     * nearly always receives one class: this skips the class lookup on the path of every call.
     */
    public void encode(Object value, KeySource source) {
        if (value == null || !canonicalizers.isEmpty()) {
            encode(value);
            return;
        }
        TypeEntry seen = source.lastType;
        if (seen == null || seen.type != value.getClass()) {
            seen = TypeEntry.of(value.getClass());
            source.lastType = seen;
        }
        encodeAs(value, seen);
    }

    /** Encodes {@code value}; throws {@link UnencodableValueException} for values that have no canonical form. */
    void encode(Object value) {
        if (value == null) {
            writeByte(NULL);
            return;
        }
        Class<?> type = value.getClass();
        if (type == String.class && canonicalizers.isEmpty()) {
            writeString((String) value); // the commonest key value, without a class lookup
            return;
        }
        if (!canonicalizers.isEmpty()) {
            Object replacement = canonicalizers.canonicalize(value);
            if (replacement != value) {
                encode(replacement);
                return;
            }
        }
        encodeAs(value, TypeEntry.of(type));
    }

    /**
     * Encodes {@code value}, of the class {@code entry} describes. The kinds a key is nearly always made of come
     * first, in a method small enough for the JIT to inline into the key's derivation; the others are behind a call.
     */
    void encodeAs(Object value, TypeEntry entry) {
        ValueKind kind = entry.kind;
        if (kind == ValueKind.PLAIN_OBJECT || kind == ValueKind.RECORD) {
            encodeObject(value, entry.layout());
        } else if (kind == ValueKind.STRING) {
            writeString(value.toString());
        } else if (kind == ValueKind.INTEGRAL) {
            writeInteger(((Number) value).longValue());
        } else {
            encodeOther(value, entry);
        }
    }

    private void encodeObject(Object value, ObjectLayout layout) {
        if (layout.flat && canonicalizers.isEmpty() && enclosing.depth() < EnclosingValues.MAX_DEPTH) {
            // Its fields hold no object that could lead back to it: no cycle to look for, nothing to push. (At the
            // deepest level the general path below refuses it, as it refuses any object there.)
            ObjectWriter.writeFlat(this, value, layout);
            return;
        }
        enclosing.enter(value);
        ObjectWriter.writeFields(this, value, layout);
        enclosing.leave();
    }

    /** {@link #encodeAs} for the kinds it does not handle itself. */
    private void encodeOther(Object value, TypeEntry entry) {
        Class<?> type = entry.type;
        switch (entry.kind) {
            case BOOLEAN:
                writeBoolean((Boolean) value);
                return;
            case INTEGRAL:
                writeInteger(((Number) value).longValue());
                return;
            case BIG_INTEGER:
                writeBigInteger((BigInteger) value);
                return;
            case FLOATING:
                writeFloating(((Number) value).doubleValue());
                return;
            case DECIMAL:
                writeDecimal((BigDecimal) value);
                return;
            case CHAR:
                writeByte(CHAR);
                writeChar((Character) value);
                return;
            case STRING:
                writeString(value.toString());
                return;
            case ENUM:
                writeByte(ENUM);
                writeUtf8(((Enum<?>) value).name());
                return;
            case UUID:
                UUID uuid = (UUID) value;
                writeByte(UUID_TAG);
                writeLong(uuid.getMostSignificantBits());
                writeLong(uuid.getLeastSignificantBits());
                return;
            case TEMPORAL:
                // The ISO form is the JDK's documented, stable text form; Instant's is always UTC.
                writeByte(TEMPORAL);
                writeUtf8(type.getSimpleName());
                writeUtf8(value.toString());
                return;
            case SCALAR:
                writeByte(SCALAR);
                writeUtf8(type.getSimpleName());
                writeUtf8(value instanceof java.util.Locale ? ((java.util.Locale) value).toLanguageTag()
                        : value.toString());
                return;
            case BYTES:
                byte[] bytes = (byte[]) value;
                writeByte(BYTES);
                writeInt(bytes.length);
                writeBytes(bytes, 0, bytes.length);
                return;
            case PRIMITIVE_ARRAY:
                writePrimitiveArray(value);
                return;
            case OBJECT_ARRAY:
                enclosing.enter(value);
                Object[] array = (Object[]) value;
                writeByte(LIST);
                writeInt(array.length);
                for (Object element : array) {
                    encode(element);
                }
                enclosing.leave();
                return;
            case OPTIONAL:
                Optional<?> optional = (Optional<?>) value;
                if (optional.isPresent()) {
                    writeByte(PRESENT);
                    encode(optional.get());
                } else {
                    writeByte(EMPTY);
                }
                return;
            case PRIMITIVE_OPTIONAL:
                writePrimitiveOptional(value);
                return;
            case LIST:
                enclosing.enter(value);
                Collection<?> list = (Collection<?>) value;
                writeByte(LIST);
                writeInt(list.size());
                for (Object element : list) {
                    encode(element);
                }
                enclosing.leave();
                return;
            case SET:
                enclosing.enter(value);
                writeSorted(SET, (Collection<?>) value);
                enclosing.leave();
                return;
            case MAP:
                enclosing.enter(value);
                writeMap((Map<?, ?>) value);
                enclosing.leave();
                return;
            case RECORD:
            case PLAIN_OBJECT:
                encodeObject(value, entry.layout());
                return;
            default:
                throw new UnencodableValueException("a value of type " + type.getName() + " has no canonical"
                        + " form (streams, callbacks, connections, threads and the JDK's non-value classes are not"
                        + " data)");
        }
    }

    /** Encodes a string, tagged. */
    public void writeString(String value) {
        writeByte(STRING);
        writeUtf8(value);
    }

    /**
     * {@code value} encoded as {@link #writeString} writes it, for a constant written at every call (an
     * operation's version): {@link #writeConstant} then copies these bytes instead of encoding the text again.
     */
    public static byte[] encodedString(String value) {
        CanonicalEncoder encoder = new CanonicalEncoder();
        encoder.writeString(value);
        return encoder.toByteArray();
    }

    /** {@link #encodedString} as {@link ConstantBytes}, which {@link #writeConstant} appends. */
    public static ConstantBytes encodedConstant(String value) {
        return new ConstantBytes(encodedString(value));
    }

    /** Encodes an integral number of any width. */
    public void writeInteger(long value) {
        writeTaggedLong(INTEGER, value);
    }

    private void writeBigInteger(BigInteger value) {
        if (value.bitLength() < 64) {
            writeInteger(value.longValue()); // the same number in a long encodes the same
            return;
        }
        byte[] magnitude = value.toByteArray();
        writeByte(BIG_INTEGER);
        writeInt(magnitude.length);
        writeBytes(magnitude, 0, magnitude.length);
    }

    void writeFloating(double value) {
        double normalised = value == 0.0 ? 0.0 : value; // -0.0 and 0.0 are one number
        writeByte(FLOATING);
        writeLong(Double.doubleToLongBits(normalised)); // one NaN bit pattern for every NaN
    }

    private void writeDecimal(BigDecimal value) {
        BigDecimal canonical = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        byte[] unscaled = canonical.unscaledValue().toByteArray();
        writeByte(DECIMAL);
        writeInt(canonical.scale());
        writeInt(unscaled.length);
        writeBytes(unscaled, 0, unscaled.length);
    }

    private void writePrimitiveArray(Object array) {
        int n = Array.getLength(array);
        writeByte(LIST);
        writeInt(n);
        Class<?> component = array.getClass().getComponentType();
        for (int i = 0; i < n; i++) {
            if (component == int.class) {
                writeInteger(((int[]) array)[i]);
            } else if (component == long.class) {
                writeInteger(((long[]) array)[i]);
            } else if (component == double.class) {
                writeFloating(((double[]) array)[i]);
            } else if (component == boolean.class) {
                writeByte(((boolean[]) array)[i] ? TRUE : FALSE);
            } else if (component == char.class) {
                writeByte(CHAR);
                writeChar(((char[]) array)[i]);
            } else if (component == float.class) {
                writeFloating(((float[]) array)[i]);
            } else if (component == short.class) {
                writeInteger(((short[]) array)[i]);
            }
        }
    }

    private void writePrimitiveOptional(Object value) {
        if (value instanceof OptionalInt) {
            OptionalInt o = (OptionalInt) value;
            if (o.isPresent()) {
                writeByte(PRESENT);
                writeInteger(o.getAsInt());
                return;
            }
        } else if (value instanceof OptionalLong) {
            OptionalLong o = (OptionalLong) value;
            if (o.isPresent()) {
                writeByte(PRESENT);
                writeInteger(o.getAsLong());
                return;
            }
        } else {
            OptionalDouble o = (OptionalDouble) value;
            if (o.isPresent()) {
                writeByte(PRESENT);
                writeFloating(o.getAsDouble());
                return;
            }
        }
        writeByte(EMPTY);
    }

    private void writeSorted(byte tag, Collection<?> elements) {
        List<byte[]> encoded = new ArrayList<>(elements.size());
        for (Object element : elements) {
            encoded.add(encodeSeparately(element));
        }
        encoded.sort(Arrays::compareUnsigned);
        writeByte(tag);
        writeInt(encoded.size());
        for (byte[] bytes : encoded) {
            writeBytes(bytes, 0, bytes.length);
        }
    }

    private void writeMap(Map<?, ?> map) {
        List<byte[][]> entries = new ArrayList<>(map.size());
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            entries.add(new byte[][] {encodeSeparately(entry.getKey()), encodeSeparately(entry.getValue())});
        }
        entries.sort((a, b) -> Arrays.compareUnsigned(a[0], b[0]));
        writeByte(MAP);
        writeInt(entries.size());
        for (byte[][] entry : entries) {
            writeBytes(entry[0], 0, entry[0].length);
            writeBytes(entry[1], 0, entry[1].length);
        }
    }

    /** Encodes into this buffer's tail, copies the bytes out, and rewinds: the element's encoding on its own. */
    private byte[] encodeSeparately(Object element) {
        int start = length;
        encode(element);
        return cutFrom(start);
    }

    /** A boolean's value, which is its own tag. */
    void writeBoolean(boolean value) {
        writeByte(value ? TRUE : FALSE);
    }

    /** A floating number's value after its tag, for {@link FlatWriter}: as {@link #writeFloating} writes it. */
    void writeFloatingBits(double value) {
        writeLong(Double.doubleToLongBits(value == 0.0 ? 0.0 : value)); // one zero, one NaN
    }

    /** The text of a string or enum whose tag was just written, or, for null, that tag replaced by the null tag. */
    void writeTextOrNull(String text) {
        if (text == null) {
            buffer[length - 1] = NULL;
        } else {
            writeUtf8(text);
        }
    }
}
