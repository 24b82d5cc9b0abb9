package dev.idem.store.redis;

import dev.idem.store.ClaimRequest;
import jakarta.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * One store's encoding of its scripts' arguments ({@link Scripts}): the Redis keys of an idempotency key under the
 * store's prefix, a claim's record fields, leases, times to live and the test offset of the server's time, each as
 * the bytes Lettuce writes to the socket.
 *
 * <p>What is the same call after call is encoded once: the Redis keys come from {@link RedisKeyNames}' per-thread
 * namer, and the owner and the lease from one-entry caches, since an engine claims with one owner and an operation
 * with one lease all its life. Every array handed out is only ever read, so cached ones are shared freely.
 */
final class ScriptArguments {
    /** The argument {@code 0}: no window, no test offset. */
    private static final byte[] ZERO = number(0);
    /** The default prefix and the start of the hash tag, which begin every Redis key of a store. */
    private static final byte[] DEFAULT_KEY_START = RedisKeyNames.keyStart(RedisIdempotencyStore.DEFAULT_PREFIX);
    private static final long TTL_MARGIN_MILLIS = RedisIdempotencyStore.TTL_MARGIN.toMillis();

    /** The prefix, its colon and the hash tag's opening brace, which begin each of this store's Redis keys. */
    private final byte[] keyStart;
    private final LongSupplier offsetMillis;
    @Nullable
    private volatile EncodedText lastOwner;
    @Nullable
    private volatile EncodedLease lastLease;

    /**
     * @param prefix       the store's prefix, already valid ({@link KeyPrefix})
     * @param offsetMillis the test offset of the server's time, always 0 outside tests
     */
    ScriptArguments(String prefix, LongSupplier offsetMillis) {
        this.keyStart = RedisKeyNames.keyStart(prefix);
        this.offsetMillis = offsetMillis;
    }

    /**
     * The Redis keys of {@code key} under the default prefix: its record and its bucket's token counter, in one slot.
     * The arrays may be shared with other calls of the same thread: callers never change them.
     */
    static byte[][] redisKeys(String key) {
        return RedisKeyNames.forThread().of(DEFAULT_KEY_START, key);
    }

    /** The Redis keys of {@code key} under {@code prefix}, as {@link #redisKeys(String)} (for tests). */
    static byte[][] redisKeys(String prefix, String key) {
        return RedisKeyNames.forThread().of(RedisKeyNames.keyStart(KeyPrefix.valid(prefix)), key);
    }

    /** {@return {@code {record, counter}}: the Redis keys of {@code key} a claim touches, named by {@code names}} */
    byte[][] claimKeys(RedisKeyNames names, String key) {
        return names.of(keyStart, key);
    }

    /**
     * The variable fields of the record {@code request} creates ({@link RecordFormat#fields}), its key's bytes taken
     * from {@code names}, which named that key last ({@link #claimKeys}).
     */
    byte[] claimFields(RedisKeyNames names, ClaimRequest request) {
        return RecordFormat.fields(names.lastKeyBytes(), bytes(request.payloadHash()), owner(request.owner()));
    }

    /** The Redis key of {@code key}'s record alone, under this store's prefix, shared like {@link #redisKeys}'s. */
    byte[][] recordKey(String key) {
        return RedisKeyNames.forThread().record(keyStart, key);
    }

    /** The wake-up channel of {@code key}: its record's name ({@link RedisWakeups}). */
    String channel(String key) {
        return new String(recordKey(key)[0], StandardCharsets.UTF_8);
    }

    /**
     * {@code owner} encoded, from a one-entry cache: an engine claims with one owner all its life, so its bytes are
     * encoded once. The cached array is only ever read (Lettuce writes it to the socket).
     */
    private byte[] owner(String owner) {
        EncodedText last = lastOwner;
        if (last != null && last.text.equals(owner)) {
            return last.bytes;
        }
        byte[] encoded = bytes(owner);
        lastOwner = new EncodedText(owner, encoded);
        return encoded;
    }

    /**
     * The record's PX of a claim with a lease of {@code millis} (the lease plus
     * {@link RedisIdempotencyStore#TTL_MARGIN}), from a one-entry cache: an operation's lease is the same every call.
     */
    byte[] leasePx(long millis) {
        EncodedLease last = lastLease;
        if (last != null && last.number == millis) {
            return last.recordPx;
        }
        EncodedLease encoded = new EncodedLease(millis, recordPx(millis));
        lastLease = encoded;
        return encoded.recordPx;
    }

    /** A text and its encoding as a script argument, immutable so a cache of one can be read without locking. */
    private record EncodedText(String text, byte[] bytes) {
    }

    /**
     * A lease and the claim's argument it makes, the record's PX (the lease plus the TTL margin); immutable like
     * {@link EncodedText}.
     */
    private record EncodedLease(long number, byte[] recordPx) {
    }

    /** The test offset of the server's time as a script argument; a constant outside tests. */
    byte[] offset() {
        long offset = offsetMillis.getAsLong();
        return offset == 0 ? ZERO : number(offset);
    }

    /** {@return a claim's window as a script argument: its milliseconds, a constant for none} */
    static byte[] window(Duration window) {
        return window.isZero() ? ZERO : number(window.toMillis());
    }

    /** {@return the Redis PX of a record kept {@code keepMillis}: it plus {@link RedisIdempotencyStore#TTL_MARGIN}} */
    static byte[] recordPx(long keepMillis) {
        return number(keepMillis + TTL_MARGIN_MILLIS);
    }

    /** {@return {@code n} in decimal digits, as Redis reads a number argument} */
    static byte[] number(long n) {
        return bytes(Long.toString(n));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
