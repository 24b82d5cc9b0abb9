package dev.idem.core.internal.key;

import java.lang.ref.WeakReference;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.security.MessageDigest;
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
 * {@code ["a","b"]} and {@code ["ab"]}) give different bytes.
 *
 * <h2>Format</h2>
 * Every value starts with a one-byte tag. Variable-length parts carry a four-byte length first, so no encoding is a
 * prefix of another. Integral numbers of every width share one tag (changing a parameter from {@code int} to
 * {@code long} keeps its keys); BigDecimal is encoded by value ({@code 1.0} = {@code 1.00}); floats are widened to
 * double; sets and maps are sorted by the unsigned bytes of their elements' (keys') encodings; records and plain
 * objects are encoded as their fields sorted by name.
 *
 * <h2>Reuse</h2>
 * An encoder (its buffer and SHA-256) is reused by its thread, so encoding a small argument list allocates
 * nothing. The thread holds it through a {@link WeakReference} only: a thread that outlives the application (a
 * container's pooled thread, a dev-tools restart) then pins no class of Idem's class loader, at the price of a new
 * encoder after a garbage collection cleared the old one. A nested use on the same thread (a canonicaliser that
 * itself calls an idempotent method) finds the thread's encoder in use and gets a fresh one rather than corrupting
 * the outer encoding.
 *
 * <h2>Nothing of the arguments outlives a call</h2>
 * {@link #release()} zeroes the bytes written and drops the references to the values being encoded, also after
 * an encoding failed half-way, so a thread's scratch space never keeps an argument (or its bytes) alive.
 */
public final class CanonicalEncoder {
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

    private static final int MAX_DEPTH = 64;
    private static final int KEPT_BUFFER_LIMIT = 64 * 1024;
    /**
     * From this many bytes on, a prefix's digest is taken from a copy of the running SHA-256 state rather than by
     * hashing the prefix a second time when asked for it (copying the state allocates; hashing a short prefix
     * again is cheaper than that).
     */
    private static final int PREFIX_SNAPSHOT_THRESHOLD = 1024;
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** The thread's encoder, held weakly so that it never pins this class's loader (see "Reuse"). */
    private static final ThreadLocal<WeakReference<CanonicalEncoder>> PER_THREAD = new ThreadLocal<>();

    private byte[] buffer = new byte[256];
    private int length;
    private final MessageDigest sha256 = Sha256.newDigest();
    private final byte[] digest = new byte[Sha256.LENGTH];
    private Object[] enclosing;
    private int depth;
    /** The deepest {@link #depth} of this use, so release clears exactly the slots that held values. */
    private int maxDepth;
    private boolean inUse;
    private Canonicalizers canonicalizers = Canonicalizers.NONE;
    private int prefixLength = -1;
    private byte[] prefixDigest;
    /**
     * The furthest {@link #length} reached before a rewind ({@link #truncate}, a set element encoded on its own), so
     * release zeroes every byte of the arguments. Bytes are only ever written below {@link #length}, so it is kept
     * where length goes back, not on every write.
     */
    private int highWater;
    /**
     * Whether bytes entered the digest that no {@code digest()} has consumed yet (only a long prefix, see
     * {@link #markPrefix()}): a finished digest resets itself, so release resets it only then.
     */
    private boolean digestStarted;
    /** The key a replay looks its result up with, written in place (see {@link CallKey.Probe}). */
    private final CallKey.Probe probe = new CallKey.Probe();
    /** The most bytes this use may encode before {@link #ensure} refuses, see {@link #limitTo(int)}. */
    private int limit = Integer.MAX_VALUE;
    /** {@code min(buffer.length, limit)}: what {@link #ensure} compares with, so the bound costs no extra test. */
    private int capacity = 256;

    private CanonicalEncoder() {
    }

    /** This thread's encoder, reset; call {@link #release()} exactly once when done with its bytes. */
    public static CanonicalEncoder acquire() {
        WeakReference<CanonicalEncoder> held = PER_THREAD.get();
        CanonicalEncoder encoder = held == null ? null : held.get();
        if (encoder == null) {
            encoder = new CanonicalEncoder();
            PER_THREAD.set(new WeakReference<>(encoder));
        } else if (encoder.inUse) {
            encoder = new CanonicalEncoder(); // a nested use: the outer encoding goes on undisturbed
        }
        encoder.inUse = true;
        return encoder;
    }

    /** Whether this thread's encoder is acquired and not yet released (for tests). */
    static boolean threadEncoderInUse() {
        WeakReference<CanonicalEncoder> held = PER_THREAD.get();
        CanonicalEncoder encoder = held == null ? null : held.get();
        return encoder != null && encoder.inUse;
    }

    /**
     * Forgets what was encoded, zeroing its bytes and dropping every reference to the values encoded (also after an
     * encoding failed half-way), and hands the encoder back to its thread.
     */
    public void release() {
        zero(buffer, Math.min(buffer.length, Math.max(length, highWater)));
        probe.clear();
        if (enclosing != null && depth > 0) {
            // leave() clears each slot as the encoding climbs back out, so only a failure half-way leaves values
            Arrays.fill(enclosing, 0, Math.min(enclosing.length, maxDepth), null);
        }
        if (buffer.length > KEPT_BUFFER_LIMIT) {
            buffer = new byte[256]; // do not pin a huge prompt's buffer to the thread
        }
        if (digestStarted) {
            sha256.reset(); // an encoding that failed between markPrefix and sha256 left bytes in the digest
            digestStarted = false;
        }
        length = 0;
        highWater = 0;
        depth = 0;
        maxDepth = 0;
        prefixLength = -1;
        prefixDigest = null;
        if (canonicalizers != Canonicalizers.NONE) {
            canonicalizers = Canonicalizers.NONE;
        }
        limit = Integer.MAX_VALUE;
        capacity = buffer.length;
        inUse = false;
    }

    /** Zero bytes to clear a buffer with by copying: an intrinsic copy stub beats a byte loop on short lengths. */
    private static final byte[] ZEROS = new byte[4096];
    /** Up to this many bytes (a short key's encoding) are zeroed a word at a time, cheaper than calling the copy. */
    private static final int ZERO_BY_WORDS = 64;

    /** Zeroes {@code bytes[0..n)}, and perhaps a few bytes beyond when {@code bytes} has room for them. */
    private static void zero(byte[] bytes, int n) {
        if (n <= ZERO_BY_WORDS && bytes.length >= ZERO_BY_WORDS) {
            for (int i = 0; i < n; i += 8) {
                LONGS.set(bytes, i, 0L);
            }
        } else if (n <= ZEROS.length) {
            System.arraycopy(ZEROS, 0, bytes, 0, n);
        } else {
            Arrays.fill(bytes, 0, n, (byte) 0);
        }
    }

    /**
     * Thrown when an encoding would pass the bound set by {@link #limitTo(int)}: a signal, not an error, so one
     * instance without a stack trace serves every thread.
     */
    public static final class OverLimitException extends RuntimeException {
        static final OverLimitException INSTANCE = new OverLimitException();

        private OverLimitException() {
            super("the encoding passed the bound its use set", null, false, false);
        }
    }

    /**
     * Bounds this use of the encoder to {@code maxBytes} (until release): an encoding that would need more throws
     * {@link OverLimitException} before it writes past it. For a lookup that is worth making only for a short
     * encoding. Conservative for text, whose room is reserved at three bytes a char before it is written.
     */
    public void limitTo(int maxBytes) {
        limit = maxBytes;
        capacity = Math.min(buffer.length, limit);
    }

    /** This encoder's probe: a key to look a result up with, valid until this encoder is released. */
    public CallKey.Probe probe() {
        return probe;
    }

    /** Whether no slot of the cycle check holds a value (for tests: release must leave none). */
    boolean holdsNoValues() {
        return enclosing == null || Arrays.stream(enclosing).allMatch(java.util.Objects::isNull);
    }

    public CanonicalEncoder using(Canonicalizers registered) {
        if (canonicalizers != registered) { // nearly always NONE already: a reference store costs a GC barrier
            canonicalizers = registered;
        }
        return this;
    }

    byte[] buffer() {
        return buffer;
    }

    int length() {
        return length;
    }

    public void truncate(int newLength) {
        highWater = Math.max(highWater, length);
        length = newLength;
        if (newLength < prefixLength) {
            prefixLength = -1;
            prefixDigest = null;
            sha256.reset();
            digestStarted = false;
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buffer, length);
    }

    /** SHA-256 of the bytes written so far, into a buffer this encoder reuses (valid until its next use). */
    public byte[] sha256() {
        // The common case first and small, so that the JIT inlines it into the key's derivation.
        if (prefixDigest == null) {
            Sha256.digest(sha256, buffer, length, digest);
            return digest;
        }
        return sha256AfterLongPrefix();
    }

    /** {@link #sha256()} when {@link #markPrefix()} already fed a long prefix to the digest. */
    private byte[] sha256AfterLongPrefix() {
        sha256.update(buffer, prefixLength, length - prefixLength); // the prefix is already in the digest
        try {
            sha256.digest(digest, 0, Sha256.LENGTH);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
        digestStarted = false;
        return digest;
    }

    /**
     * Marks the bytes written so far as a prefix whose digest {@link #prefixSha256()} will give, without encoding
     * them again: the key's encoding begins with the payload's when the two are the same parameters.
     */
    public void markPrefix() {
        prefixLength = length;
        if (length >= PREFIX_SNAPSHOT_THRESHOLD) {
            sha256.update(buffer, 0, length);
            digestStarted = true;
            try {
                MessageDigest snapshot = (MessageDigest) sha256.clone();
                prefixDigest = snapshot.digest();
            } catch (CloneNotSupportedException e) {
                sha256.reset(); // a provider that cannot copy its state: hash the prefix again when asked
                digestStarted = false;
                prefixDigest = null;
            }
        }
    }

    /** SHA-256 of the prefix marked by {@link #markPrefix()}, as a new array. */
    public byte[] prefixSha256() {
        if (prefixLength < 0) {
            throw new IllegalStateException("no prefix marked");
        }
        if (prefixDigest != null) {
            return prefixDigest.clone();
        }
        byte[] out = new byte[Sha256.LENGTH];
        Sha256.digest(sha256, buffer, prefixLength, out); // a short prefix never entered the digest: hash it now
        return out;
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
    private void encodeAs(Object value, TypeEntry entry) {
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
        if (layout.flat && canonicalizers.isEmpty() && depth < MAX_DEPTH) {
            // Its fields hold no object that could lead back to it: no cycle to look for, nothing to push. (At the
            // deepest level the general path below refuses it, as it refuses any object there.)
            writeFlatObject(value, layout);
            return;
        }
        enter(value);
        writeObject(value, layout);
        leave();
    }

    /** {@link #encodeAs} for the kinds it does not handle itself. */
    private void encodeOther(Object value, TypeEntry entry) {
        Class<?> type = entry.type;
        switch (entry.kind) {
            case BOOLEAN:
                writeByte((Boolean) value ? TRUE : FALSE);
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
                enter(value);
                Object[] array = (Object[]) value;
                writeByte(LIST);
                writeInt(array.length);
                for (Object element : array) {
                    encode(element);
                }
                leave();
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
                enter(value);
                Collection<?> list = (Collection<?>) value;
                writeByte(LIST);
                writeInt(list.size());
                for (Object element : list) {
                    encode(element);
                }
                leave();
                return;
            case SET:
                enter(value);
                writeSorted(SET, (Collection<?>) value);
                leave();
                return;
            case MAP:
                enter(value);
                writeMap((Map<?, ?>) value);
                leave();
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

    /** Appends {@code constant}'s bytes. */
    public void writeConstant(ConstantBytes constant) {
        byte[] bytes = constant.bytes;
        int n = bytes.length;
        ensure(n);
        int at = length;
        if (constant.inWords && at + ConstantBytes.WORDS_LENGTH <= buffer.length) {
            // Past the constant's end the words carry zeros, which land where nothing counts: at and above length
            // there is nothing yet, or what a rewind left, which release zeroes anyway.
            LONGS.set(buffer, at, constant.first);
            LONGS.set(buffer, at + 8, constant.second);
        } else {
            System.arraycopy(bytes, 0, buffer, at, n);
        }
        length = at + n;
    }

    public void writeInteger(long value) {
        ensure(9); // the tag and the value behind one bound check
        buffer[length] = INTEGER;
        LONGS.set(buffer, length + 1, value);
        length += 9;
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

    private void writeFloating(double value) {
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
        byte[] bytes = Arrays.copyOfRange(buffer, start, length);
        highWater = Math.max(highWater, length);
        length = start;
        return bytes;
    }

    private void writeObject(Object value, ObjectLayout layout) {
        if (layout.inaccessible != null) {
            throw layout.inaccessible;
        }
        Field[] fields = layout.fields;
        byte[] kinds = layout.kinds;
        if (fields.length == 0) {
            writeByte(OBJECT);
            writeInt(0);
            return;
        }
        for (int i = 0; i < fields.length; i++) {
            byte[] prefix = layout.prefixes[i]; // the name's length and UTF-8 bytes (and the tag), prepared once
            writeBytes(prefix, 0, prefix.length);
            try {
                writeField(kinds[i], fields[i], value, layout, i);
            } catch (IllegalAccessException e) {
                throw new UnencodableValueException("cannot read field " + fields[i].getName() + ": "
                        + e.getMessage());
            }
        }
    }

    /**
     * Writes an object of a {@link ObjectLayout#flat} layout, with no canonicalisers: the same bytes as
     * {@link #writeObject}, through the layout's {@link FlatWriter} once the class is hot, field by field before.
     */
    private void writeFlatObject(Object value, ObjectLayout layout) {
        MethodHandle writer = layout.flatWriter();
        if (writer == null) {
            writeFlatFields(value, layout);
            return;
        }
        try {
            writer.invokeExact(this, value);
        } catch (RuntimeException | Error e) {
            throw e; // OverLimitException among them, unchanged
        } catch (Throwable t) {
            throw new IllegalStateException("a flat writer threw " + t, t); // its parts declare nothing checked
        }
    }

    /** {@link #writeFlatObject} through reflection: what {@link FlatWriter} does, a field at a time. */
    private void writeFlatFields(Object value, ObjectLayout layout) {
        Field[] fields = layout.fields;
        byte[] kinds = layout.kinds;
        ConstantBytes[] prefixes = layout.taggedPrefixes;
        int i = 0;
        try {
            for (; i < fields.length; i++) {
                writeConstant(prefixes[i]);
                Field field = fields[i];
                switch (kinds[i]) {
                    case ObjectLayout.INT:
                    case ObjectLayout.LONG:
                    case ObjectLayout.SMALL_INTEGRAL:
                        writeLong(field.getLong(value)); // widened, as every integral number is encoded
                        break;
                    case ObjectLayout.BOOLEAN:
                        writeBoolean(field.getBoolean(value));
                        break;
                    case ObjectLayout.DOUBLE:
                    case ObjectLayout.FLOAT:
                        writeFloatingBits(field.getDouble(value));
                        break;
                    case ObjectLayout.CHAR:
                        writeChar(field.getChar(value));
                        break;
                    case ObjectLayout.STRING:
                        writeTextOrNull((String) field.get(value));
                        break;
                    default: // ENUM
                        Enum<?> constant = (Enum<?>) field.get(value);
                        writeTextOrNull(constant == null ? null : constant.name());
                }
            }
        } catch (IllegalAccessException e) {
            throw new UnencodableValueException("cannot read field " + fields[i].getName() + ": " + e.getMessage());
        }
    }

    /** A boolean field's value, for {@link FlatWriter}: the value is its own tag. */
    void writeBoolean(boolean value) {
        writeByte(value ? TRUE : FALSE);
    }

    /** A floating field's value after its tag, for {@link FlatWriter}: as {@link #writeFloating} writes it. */
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

    /** Writes field {@code i} of {@code owner}, read as its {@code kind} (decided once, by the layout) says. */
    private void writeField(byte kind, Field field, Object owner, ObjectLayout layout, int i)
            throws IllegalAccessException {
        switch (kind) {
            case ObjectLayout.INT:
                writeInteger(field.getInt(owner));
                return;
            case ObjectLayout.LONG:
            case ObjectLayout.SMALL_INTEGRAL:
                writeInteger(field.getLong(owner));
                return;
            case ObjectLayout.BOOLEAN:
                writeByte(field.getBoolean(owner) ? TRUE : FALSE);
                return;
            case ObjectLayout.DOUBLE:
                writeFloating(field.getDouble(owner));
                return;
            case ObjectLayout.FLOAT:
                writeFloating(field.getFloat(owner));
                return;
            case ObjectLayout.CHAR:
                writeByte(CHAR);
                writeChar(field.getChar(owner));
                return;
            default: // REFERENCE; and STRING and ENUM when canonicalisers send a flat object here
                Object fieldValue = field.get(owner);
                if (fieldValue == null || fieldValue.getClass() == String.class || !canonicalizers.isEmpty()) {
                    encode(fieldValue); // its own fast path for strings, and the canonicalisers' lookup
                    return;
                }
                TypeEntry seen = layout.lastTypes[i];
                if (seen == null || seen.type != fieldValue.getClass()) {
                    seen = TypeEntry.of(fieldValue.getClass());
                    layout.lastTypes[i] = seen;
                }
                encodeAs(fieldValue, seen);
        }
    }

    private void enter(Object composite) {
        if (enclosing == null) {
            enclosing = new Object[8];
        } else if (depth == enclosing.length && depth < MAX_DEPTH) {
            enclosing = Arrays.copyOf(enclosing, Math.min(MAX_DEPTH, depth * 2));
        }
        for (int i = 0; i < depth; i++) {
            if (enclosing[i] == composite) {
                throw new UnencodableValueException("the value contains a cycle through a "
                        + composite.getClass().getName());
            }
        }
        if (depth == MAX_DEPTH) {
            throw new UnencodableValueException("the value is nested deeper than " + MAX_DEPTH + " levels");
        }
        enclosing[depth++] = composite;
        maxDepth = Math.max(maxDepth, depth);
    }

    private void leave() {
        enclosing[--depth] = null;
    }

    public void writeByte(byte b) {
        ensure(1);
        buffer[length++] = b;
    }

    void writeChar(char c) {
        ensure(2);
        buffer[length++] = (byte) (c >>> 8);
        buffer[length++] = (byte) c;
    }

    public void writeInt(int v) {
        ensure(4);
        INTS.set(buffer, length, v);
        length += 4;
    }

    void writeLong(long v) {
        ensure(8);
        LONGS.set(buffer, length, v);
        length += 8;
    }

    private void writeBytes(byte[] bytes, int offset, int count) {
        ensure(count);
        System.arraycopy(bytes, offset, buffer, length, count);
        length += count;
    }

    /** UTF-8 without allocating: a length slot, the bytes, then the length patched in. */
    private void writeUtf8(String s) {
        int n = s.length();
        // Three bytes a char bound any text; a long one (a prompt, a document) is measured instead, so that its
        // buffer is not three times its size.
        ensure(4 + (n <= KEPT_BUFFER_LIMIT ? n * 3 : utf8Bound(s)));
        int lengthSlot = length;
        byte[] buf = buffer;
        int at = length + 4;
        int i = 0;
        // Keys are nearly always ASCII (ids, codes, names): copy those chars with no branch on the width.
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                break;
            }
            buf[at + i] = (byte) c;
        }
        length = at + i;
        if (i < n) {
            writeUtf8Beyond(s, i);
        }
        INTS.set(buffer, lengthSlot, length - lengthSlot - 4);
    }

    /**
     * {@link #writeUtf8}'s chars from {@code i} on, the first of which is not ASCII, at {@link #length} (room
     * reserved): apart, so that the ASCII case stays small enough for the JIT to inline.
     */
    private void writeUtf8Beyond(String s, int i) {
        for (int n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buffer[length++] = (byte) c;
            } else if (c < 0x800) {
                buffer[length++] = (byte) (0xC0 | (c >> 6));
                buffer[length++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                buffer[length++] = (byte) (0xF0 | (cp >> 18));
                buffer[length++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                buffer[length++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                buffer[length++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                buffer[length++] = (byte) '?'; // an unpaired surrogate, as String.getBytes(UTF_8) writes it
            } else {
                buffer[length++] = (byte) (0xE0 | (c >> 12));
                buffer[length++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buffer[length++] = (byte) (0x80 | (c & 0x3F));
            }
        }
    }

    /** At least the UTF-8 length of {@code s} (a surrogate pair counts six, not four), without allocating. */
    private static int utf8Bound(String s) {
        long bound = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            bound += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        return (int) Math.min(bound, Integer.MAX_VALUE - 16);
    }

    private void ensure(int extra) {
        int needed = length + extra;
        if (needed > capacity) { // one comparison on the path of every write: the buffer's end or the bound
            if (needed > limit) {
                throw OverLimitException.INSTANCE;
            }
            if (needed <= buffer.length) {
                return;
            }
            // Doubling, or for one large value its size with an eighth to spare: the few bytes written after a
            // 10 MB argument (the version, the window) then fit, instead of doubling to 20 MB and copying it again.
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, needed + (needed >> 3) + 64));
            capacity = Math.min(buffer.length, limit);
        }
    }
}
