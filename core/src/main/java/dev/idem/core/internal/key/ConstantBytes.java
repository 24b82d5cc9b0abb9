package dev.idem.core.internal.key;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Bytes that the encoder writes again and again unchanged (a field's name with its length and its value's tag, an
 * operation's version), prepared once. Up to {@value #WORDS_LENGTH} of them are also held as two big-endian words
 * of the bytes followed by zeros, so that {@link EncodingBuffer#writeConstant} writes them as two stores rather
 * than through a call of the array copy, which costs more than the copy itself at these lengths.
 *
 * <p>Immutable: {@link #bytes} is never changed after construction.
 */
public final class ConstantBytes {
    /** The most bytes held as words. */
    static final int WORDS_LENGTH = 16;

    final byte[] bytes;
    /** Whether {@link #first} and {@link #second} hold the bytes. */
    final boolean inWords;
    final long first;
    final long second;

    ConstantBytes(byte[] bytes) {
        this.bytes = bytes.clone();
        this.inWords = bytes.length <= WORDS_LENGTH;
        ByteBuffer words = ByteBuffer.wrap(Arrays.copyOf(bytes, Math.max(WORDS_LENGTH, bytes.length)));
        this.first = words.getLong(0);
        this.second = words.getLong(8);
    }

    /** How many bytes these are. */
    public int length() {
        return bytes.length;
    }
}
