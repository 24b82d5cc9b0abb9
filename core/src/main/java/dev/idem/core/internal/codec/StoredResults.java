package dev.idem.core.internal.codec;

import dev.idem.codec.ResultCodec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One method's results as the store holds them: a header naming the codec and its format version, then the codec's
 * body. Reading checks the header first, so bytes written by another codec, by a newer format, or by something
 * that is not Idem are refused with a message naming both codecs, and the body is handed only to the codec that
 * wrote it.
 *
 * <pre>
 *   byte 0      'I' (0x49), the mark of a stored result
 *   byte 1      n, the length of the codec's name (1..16)
 *   bytes 2..   the codec's name in ASCII
 *   byte 2+n    the body's format version (1..255)
 *   then        the body
 * </pre>
 */
public final class StoredResults {
    private static final byte MARK = 'I';

    /** A stored result could not be read; the message says why, in words an operator can act on. */
    public static final class UnreadableResultException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadableResultException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final String codecName;
    private final int formatVersion;
    private final ResultCodec codec;
    private final byte[] header;

    public StoredResults(String codecName, int formatVersion, ResultCodec codec) {
        this.codecName = codecName;
        this.formatVersion = formatVersion;
        this.codec = codec;
        byte[] name = codecName.getBytes(StandardCharsets.US_ASCII);
        this.header = new byte[name.length + 3];
        header[0] = MARK;
        header[1] = (byte) name.length;
        System.arraycopy(name, 0, header, 2, name.length);
        header[name.length + 2] = (byte) formatVersion;
    }

    public String codecName() {
        return codecName;
    }

    /** The stored form of {@code value}; throws whatever the codec throws for a value it cannot encode. */
    public byte[] encode(Object value) throws Exception {
        if (codec instanceof JavaSerializationCodec) { // the core's own codec writes after the header itself
            return ((JavaSerializationCodec) codec).encodeAfter(header, value);
        }
        byte[] body = codec.encode(value);
        byte[] stored = Arrays.copyOf(header, header.length + body.length);
        System.arraycopy(body, 0, stored, header.length, body.length);
        return stored;
    }

    /** The value {@code stored} holds. */
    public Object decode(byte[] stored) throws UnreadableResultException {
        if (stored.length < 4 || stored[0] != MARK || stored[1] < 1 || stored[1] > 16 || stored.length < stored[1] + 3) {
            throw new UnreadableResultException("the stored bytes are not a result written by this version of Idem"
                    + " (no codec header; this method reads with the '" + codecName + "' codec)", null);
        }
        int nameLength = stored[1];
        String writer = new String(stored, 2, nameLength, StandardCharsets.US_ASCII);
        int version = stored[2 + nameLength] & 0xFF;
        if (!writer.equals(codecName)) {
            throw new UnreadableResultException("it was written by the '" + writer + "' codec, but this method reads"
                    + " with '" + codecName + "' (the codec was changed while records of the old one were kept)",
                    null);
        }
        if (version > formatVersion || version == 0) {
            throw new UnreadableResultException("it was written in format " + version + " of the '" + writer
                    + "' codec, newer than the " + formatVersion + " this version reads (a newer release wrote it)",
                    null);
        }
        byte[] body = Arrays.copyOfRange(stored, nameLength + 3, stored.length);
        try {
            return codec.decode(body, version);
        } catch (Exception | StackOverflowError e) {
            throw new UnreadableResultException("the '" + codecName + "' codec could not decode it: " + e, e);
        }
    }
}
