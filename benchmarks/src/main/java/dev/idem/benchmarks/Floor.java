package dev.idem.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;

/**
 * The least any correct implementation does on a replay, written by hand for this one argument shape: a
 * type-tagged, length-prefixed encoding of the two fields, SHA-256, and a Caffeine hit on a 128-bit key.
 */
final class Floor {
    private record Key128(long hi, long lo) {
    }

    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });
    private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[256]);
    private static final ThreadLocal<byte[]> DIGEST = ThreadLocal.withInitial(() -> new byte[32]);

    /** A result and the time it stops counting, as an expiring cache must keep. */
    private record Expiring(String value, long expiresAtMillis) {
    }

    private final Cache<Key128, String> cache = Caffeine.newBuilder().maximumSize(10_000).build();
    private final Cache<Key128, Expiring> expiring = Caffeine.newBuilder().maximumSize(10_000).build();
    private final Clock clock = Clock.systemUTC();

    void remember(GenerateRequest request, String result) {
        cache.put(key(request), result);
        expiring.put(key(request), new Expiring(result, Long.MAX_VALUE));
    }

    String lookup(GenerateRequest request) {
        return cache.getIfPresent(key(request));
    }

    /**
     * The floor plus the one clock read a cache whose entries expire must do: the same hit, then the entry's expiry
     * compared with the clock the engine reads ({@code Clock.systemUTC()}).
     */
    String lookupWithClock(GenerateRequest request) {
        Expiring e = expiring.getIfPresent(key(request));
        return e != null && clock.millis() < e.expiresAtMillis() ? e.value() : null;
    }

    private static Key128 key(GenerateRequest request) {
        byte[] b = BUFFER.get();
        String topic = request.topic();
        int n = 0;
        b[n++] = 13; // list of two
        n = putInt(b, n, 2);
        b[n++] = 8; // string, its length, its bytes (ASCII here; the real encoder handles all of UTF-8)
        n = putInt(b, n, topic.length());
        for (int i = 0; i < topic.length(); i++) {
            b[n++] = (byte) topic.charAt(i);
        }
        b[n++] = 3; // integer
        n = putInt(b, n, 0);
        n = putInt(b, n, request.day());
        MessageDigest sha = SHA_256.get();
        sha.update(b, 0, n);
        byte[] d = DIGEST.get();
        try {
            sha.digest(d, 0, 32);
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
        return new Key128(readLong(d, 0), readLong(d, 8));
    }

    private static int putInt(byte[] b, int n, int v) {
        b[n] = (byte) (v >>> 24);
        b[n + 1] = (byte) (v >>> 16);
        b[n + 2] = (byte) (v >>> 8);
        b[n + 3] = (byte) v;
        return n + 4;
    }

    private static long readLong(byte[] b, int offset) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[offset + i] & 0xFF);
        }
        return v;
    }
}
