package dev.idem.store.redis;

import dev.idem.store.KeyHasher;
import jakarta.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The Redis keys of an idempotency key {@code K} under a prefix {@code p}: its record {@code p:{b}:h} and its bucket's
 * fencing-token counter {@code p:{b}:t}, where {@code h} is the first 128 bits of {@link KeyHasher}'s hash of K in
 * hex and {@code b} the first 3 of those digits (one of {@link RedisIdempotencyStore#BUCKETS} hash tags, so a record
 * and its counter share a Cluster slot).
 *
 * <p>One per thread ({@link #forThread()}), remembering the last key it named: an engine completes a key on the
 * thread that claimed it, so the completion finds its names here instead of hashing the key again. The arrays handed
 * out may be handed out again for the same key: callers never change them.
 */
final class RedisKeyNames {
    /** The hex digits of a bucket: its hash tag. */
    private static final int BUCKET_DIGITS = 3;
    /** After the bucket: the end of the hash tag. */
    private static final byte[] TAG_END = "}:".getBytes(StandardCharsets.UTF_8);
    /** The counter's name within its bucket, {@code p:{b}:t}; a record's is its 32-digit h. */
    private static final byte COUNTER = 't';
    /** How many bytes of the key's hash name its Redis keys: 128 bits. */
    private static final int HASH_BYTES = 16;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final ThreadLocal<RedisKeyNames> FOR_THREAD = ThreadLocal.withInitial(RedisKeyNames::new);

    private final KeyHasher hasher = new KeyHasher();
    @Nullable
    private byte[] lastKeyStart;
    @Nullable
    private String lastKey;
    /** The last key's UTF-8 bytes, which the claim also sends as the record's key. */
    private byte[] lastKeyBytes = new byte[0];
    private byte[][] lastNames = new byte[0][];
    /** The last key's record name alone, for every operation but the claim (only a claim writes the counter). */
    private byte[][] lastRecord = new byte[0][];

    private RedisKeyNames() {
    }

    /** {@return this thread's namer} */
    static RedisKeyNames forThread() {
        return FOR_THREAD.get();
    }

    /** The start of every Redis key under {@code prefix}: the prefix, its ':' and the hash tag's opening brace. */
    static byte[] keyStart(String prefix) {
        return (prefix + ":{").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The record's and the counter's names of {@code key} under {@code keyStart}.
     *
     * @param keyStart a {@link #keyStart(String)}, compared by identity: a store's is one array
     * @param key      the idempotency key
     * @return {@code {record, counter}}
     */
    byte[][] of(byte[] keyStart, String key) {
        if (keyStart == lastKeyStart && key.equals(lastKey)) {
            return lastNames;
        }
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        byte[] hash = hasher.hash(keyBytes);
        byte[] hex = new byte[2 * HASH_BYTES];
        for (int i = 0; i < HASH_BYTES; i++) {
            hex[2 * i] = HEX[(hash[i] >> 4) & 0xf];
            hex[2 * i + 1] = HEX[hash[i] & 0xf];
        }
        // p:{b}: then h for the record, t for the counter
        int tagged = keyStart.length + BUCKET_DIGITS + TAG_END.length;
        byte[] record = new byte[tagged + hex.length];
        System.arraycopy(keyStart, 0, record, 0, keyStart.length);
        System.arraycopy(hex, 0, record, keyStart.length, BUCKET_DIGITS);
        System.arraycopy(TAG_END, 0, record, keyStart.length + BUCKET_DIGITS, TAG_END.length);
        System.arraycopy(hex, 0, record, tagged, hex.length);
        byte[] counter = Arrays.copyOf(record, tagged + 1);
        counter[tagged] = COUNTER;
        lastKeyStart = keyStart;
        lastKey = key;
        lastKeyBytes = keyBytes;
        lastNames = new byte[][] {record, counter};
        lastRecord = new byte[][] {record};
        return lastNames;
    }

    /** {@return {@code {record}}: the record's name of {@code key} under {@code keyStart} alone, as {@link #of}} */
    byte[][] record(byte[] keyStart, String key) {
        of(keyStart, key);
        return lastRecord;
    }

    /** {@return the UTF-8 bytes of the key last named} */
    byte[] lastKeyBytes() {
        return lastKeyBytes;
    }
}
