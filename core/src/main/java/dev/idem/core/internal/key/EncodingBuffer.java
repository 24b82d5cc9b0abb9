package dev.idem.core.internal.key;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The scratch space an encoding is written into: a growable byte array and the primitive forms every tagged value
 * is made of. Numbers are big-endian, a char is its two UTF-16 bytes, text is a four-byte length and then its UTF-8
 * bytes (an unpaired surrogate as {@code '?'}, as {@code String.getBytes(UTF_8)} writes it). These forms are part of
 * the canonical encoding: changing one changes every key.
 *
 * <p>What it promises besides the bytes: bytes are only ever written below {@link #length} (also past a rewind, so
 * {@link #highWater} bounds every byte an encoding wrote), and {@link #clear()} zeroes them all, so nothing of an
 * argument outlives its encoding in a thread's reused buffer; a buffer grown past {@value #KEPT_BUFFER_LIMIT} bytes
 * is dropped by {@link #clear()} rather than kept for the thread.
 *
 * <p>{@link CanonicalEncoder} extends it rather than holding one, so that each write of the hot path reads and
 * writes fields of the encoder itself: no object between the encoder and its bytes. Its methods are final, so every
 * call is bound statically, and it is public only so that the encoder inherits its public writes without bridges.
 * It is mutable and confined to the thread that acquired the encoder.
 */
public abstract sealed class EncodingBuffer permits CanonicalEncoder {
    /** The largest buffer a thread keeps between encodings; also the longest text whose room is not measured. */
    static final int KEPT_BUFFER_LIMIT = 64 * 1024;
    private static final int INITIAL_LENGTH = 256;
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Zero bytes to clear a buffer with by copying: an intrinsic copy stub beats a byte loop on short lengths. */
    private static final byte[] ZEROS = new byte[4096];
    /** Up to this many bytes (a short key's encoding) are zeroed a word at a time, cheaper than calling the copy. */
    private static final int ZERO_BY_WORDS = 64;

    byte[] buffer = new byte[INITIAL_LENGTH];
    /** How many bytes of {@link #buffer} the encoding holds. */
    int length;
    /**
     * The furthest {@link #length} reached before a rewind, so {@link #clear()} zeroes every byte written. Kept
     * where length goes back, not on every write.
     */
    private int highWater;

    EncodingBuffer() {
    }

    final byte[] buffer() {
        return buffer;
    }

    final int length() {
        return length;
    }

    /** The bytes written so far, as a new array. */
    final byte[] toByteArray() {
        return Arrays.copyOf(buffer, length);
    }

    /** Goes back to {@code newLength} bytes; the bytes beyond are overwritten by what is written next. */
    final void rewindTo(int newLength) {
        highWater = Math.max(highWater, length);
        length = newLength;
    }

    /** The bytes written from {@code start} on, as a new array, and rewinds to {@code start}. */
    final byte[] cutFrom(int start) {
        byte[] bytes = Arrays.copyOfRange(buffer, start, length);
        rewindTo(start);
        return bytes;
    }

    /**
     * Zeroes every byte written since the last clear, drops a buffer grown past {@value #KEPT_BUFFER_LIMIT} bytes,
     * and starts over at no bytes.
     */
    final void clear() {
        zero(buffer, Math.min(buffer.length, Math.max(length, highWater)));
        if (buffer.length > KEPT_BUFFER_LIMIT) {
            buffer = new byte[INITIAL_LENGTH]; // do not pin a huge prompt's buffer to the thread
        }
        length = 0;
        highWater = 0;
    }

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

    /** One byte: a tag. */
    public final void writeByte(byte b) {
        ensure(1);
        buffer[length++] = b;
    }

    /** A char's two UTF-16 bytes. */
    final void writeChar(char c) {
        ensure(2);
        buffer[length++] = (byte) (c >>> 8);
        buffer[length++] = (byte) c;
    }

    /** Four bytes: a length or a count. */
    public final void writeInt(int v) {
        ensure(4);
        INTS.set(buffer, length, v);
        length += 4;
    }

    /** Eight bytes. */
    final void writeLong(long v) {
        ensure(8);
        LONGS.set(buffer, length, v);
        length += 8;
    }

    /** A tag byte and a long behind one bound check: the form of every integral number. */
    final void writeTaggedLong(byte tag, long v) {
        ensure(9);
        buffer[length] = tag;
        LONGS.set(buffer, length + 1, v);
        length += 9;
    }

    /** {@code count} bytes of {@code bytes} from {@code offset}, as they are. */
    final void writeBytes(byte[] bytes, int offset, int count) {
        ensure(count);
        System.arraycopy(bytes, offset, buffer, length, count);
        length += count;
    }

    /** Appends {@code constant}'s bytes. */
    public final void writeConstant(ConstantBytes constant) {
        byte[] bytes = constant.bytes;
        int n = bytes.length;
        ensure(n);
        int at = length;
        if (constant.inWords && at + ConstantBytes.WORDS_LENGTH <= buffer.length) {
            // Past the constant's end the words carry zeros, which land where nothing counts: at and above length
            // there is nothing yet, or what a rewind left, which clear zeroes anyway.
            LONGS.set(buffer, at, constant.first);
            LONGS.set(buffer, at + 8, constant.second);
        } else {
            System.arraycopy(bytes, 0, buffer, at, n);
        }
        length = at + n;
    }

    /** Text: its UTF-8 length, then the bytes, without allocating (a length slot, the bytes, the length patched in). */
    final void writeUtf8(String s) {
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

    /** Makes room for {@code extra} more bytes: one comparison on the path of every write. */
    private void ensure(int extra) {
        int needed = length + extra;
        if (needed > buffer.length) {
            grow(needed);
        }
    }

    /**
     * Doubling, or for one large value its size with an eighth to spare: the few bytes written after a 10 MB
     * argument (the version, the window) then fit, instead of doubling to 20 MB and copying it again.
     */
    private void grow(int needed) {
        buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, needed + (needed >> 3) + 64));
    }
}
