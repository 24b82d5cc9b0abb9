package dev.idem.core.internal.key;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 without per-call allocation: one digest per thread, results written into caller-supplied arrays. It hashes
 * the canonical encoding of a call's arguments into the key's and the payload's hash; it is not the stores' hash of a
 * whole key string ({@link dev.idem.store.KeyHasher}), which stores derive their record names from.
 */
public final class Sha256 {
    public static final int LENGTH = 32;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private Sha256() {
    }

    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }

    /** Hashes {@code bytes[0..length)} with {@code digest} into {@code out[0..32)}. */
    static void digest(MessageDigest digest, byte[] bytes, int length, byte[] out) {
        digest.update(bytes, 0, length);
        try {
            digest.digest(out, 0, LENGTH);
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long readLong(byte[] bytes, int offset) {
        return (long) LONGS.get(bytes, offset);
    }

    // Hex is built as Latin-1 bytes in a per-thread scratch array, and the String copies what it needs of it: a
    // String of them stores one byte a character, so on the path of every first call no char[] twice its size and no
    // exact-size byte[] is made and thrown away, only the String's own array.

    private static final int SCRATCH_LENGTH = 512;
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[SCRATCH_LENGTH]);

    public static String hex(byte[] bytes, int length) {
        byte[] text = length * 2 <= SCRATCH_LENGTH ? SCRATCH.get() : new byte[length * 2];
        for (int i = 0; i < length; i++) {
            text[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
            text[2 * i + 1] = HEX[bytes[i] & 0xF];
        }
        return new String(text, 0, length * 2, StandardCharsets.ISO_8859_1);
    }

    /** The 32 hex digits of {@code hi} and {@code lo}. */
    static String hex128(long hi, long lo) {
        return hex128("", hi, lo);
    }

    /** {@code prefix} followed by the 32 hex digits of {@code hi} and {@code lo}, in one String. */
    static String hex128(String prefix, long hi, long lo) {
        int p = prefix.length();
        byte[] text = p + 32 <= SCRATCH_LENGTH ? SCRATCH.get() : new byte[p + 32];
        for (int i = 0; i < p; i++) {
            char c = prefix.charAt(i);
            if (c > 0xFF) { // a scope beyond Latin-1: let String do the general case
                return prefix + hex128("", hi, lo);
            }
            text[i] = (byte) c;
        }
        for (int i = 0; i < 16; i++) {
            text[p + 15 - i] = HEX[(int) (hi >>> (4 * i)) & 0xF];
            text[p + 31 - i] = HEX[(int) (lo >>> (4 * i)) & 0xF];
        }
        return new String(text, 0, p + 32, StandardCharsets.ISO_8859_1);
    }
}
