package dev.idem.store.redis;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.KeyScopes;
import jakarta.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One store's reading of its scripts' replies ({@link Scripts}): the status of a write, the record a reply carries,
 * and the failure of an item a script could not apply, each failure naming the operation, the key and the server
 * ({@code where}).
 */
final class ScriptReplies {
    /** The status of a script's reply for an item it could not apply, {@code {-1, why}} ({@link Scripts#CLAIM}). */
    static final long NOT_APPLIED = -1;

    private final String where;

    /** @param where the server as failures name it */
    ScriptReplies(String where) {
        this.where = where;
    }

    /**
     * The failure of one item of a call that could not be applied, {@code {-1, why}} ({@link Scripts#CLAIM}): a value
     * that is not this store's under its keys. Only its caller fails; the call's other items were applied alone.
     */
    IdempotencyStoreException notApplied(String operation, String key, List<?> reply) {
        return new IdempotencyStoreException("redis store: " + operation + " of " + KeyScopes.describe(key)
                + " failed on " + where + ": Redis key " + text(reply.get(1)));
    }

    /** {@return whether a guarded write's reply says it was applied: 1, or 0 when the record was not the caller's} */
    static boolean applied(Long reply) {
        return reply == 1L;
    }

    /**
     * The record at {@code index} of {@code reply}, read from {@code redisKey} by {@code operation} of {@code key}, or
     * null when absent.
     *
     * @throws IdempotencyStoreException naming the operation and the Redis key when the value there is not a record
     */
    @Nullable
    IdempotencyRecord record(String operation, String key, byte[] redisKey, List<?> reply, int index) {
        if (reply.size() <= index) {
            return null;
        }
        byte[] raw = (byte[]) reply.get(index);
        try {
            return RecordFormat.parse(raw);
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException("redis store: " + operation + " of " + KeyScopes.describe(key)
                    + " failed on " + where + ": Redis key " + new String(redisKey, StandardCharsets.UTF_8)
                    + " holds a value of " + raw.length + " bytes that is not a record of this store's format", e);
        }
    }

    /** {@return a reply's bulk string as text} */
    static String text(Object field) {
        return new String((byte[]) field, StandardCharsets.UTF_8);
    }
}
