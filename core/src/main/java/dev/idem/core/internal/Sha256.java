package dev.idem.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 without per-call allocation: one digest per thread, results written into caller-supplied arrays. */
final class Sha256 {
    static final int LENGTH = 32;
    private static final char[] HEX = "0123456789abcdef".toCharArray();
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

    static long readLong(byte[] bytes, int offset) {
        return (long) LONGS.get(bytes, offset);
    }

    static String hex(byte[] bytes, int length) {
        char[] chars = new char[length * 2];
        for (int i = 0; i < length; i++) {
            chars[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
            chars[2 * i + 1] = HEX[bytes[i] & 0xF];
        }
        return new String(chars);
    }

    static String hex128(long hi, long lo) {
        char[] chars = new char[32];
        for (int i = 0; i < 16; i++) {
            chars[15 - i] = HEX[(int) (hi >>> (4 * i)) & 0xF];
            chars[31 - i] = HEX[(int) (lo >>> (4 * i)) & 0xF];
        }
        return new String(chars);
    }
}
