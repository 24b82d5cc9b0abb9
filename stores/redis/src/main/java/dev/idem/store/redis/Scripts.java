package dev.idem.store.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the store, one per operation: each runs as one atomic step on the server, reads the server's
 * {@code TIME} itself and touches only the two keys of one idempotency key, {@code KEYS[1]} (the record, a hash) and
 * {@code KEYS[2]} (the key's token counter), which share a hash tag and so a Cluster slot.
 *
 * <p>The record's fields: {@code k} key, {@code s} state, {@code p} payload hash, {@code o} owner, {@code t} fencing
 * token, {@code st} started at, {@code lu} lease until, {@code ca} completed at, {@code ea} expires at, {@code r}
 * result; times in epoch milliseconds of the server's clock plus the offset passed in (zero outside tests).
 *
 * <p>Wake-ups: complete, fail, release and delete end by publishing the new state on the key's channel
 * {@code idem:{h}:w} ({@link RedisWakeups}) with {@code SPUBLISH}, inside the script, so no write that ends an
 * execution goes unannounced. Sharded pub/sub because the channel carries the key's hash tag: in a Cluster the message
 * stays on the shard that holds the key (and the script may only publish in its own slot), where a classic
 * {@code PUBLISH} is broadcast to every node. Published with {@code pcall}, so a server without sharded pub/sub
 * (before 7.0) still applies the write; its waiters are found by their re-check.
 *
 * <p>Tokens: a claim's token is the larger of the counter plus one (and the record's token plus one, should the counter
 * have been evicted) and the server's now in microseconds. The counter outlives the record by
 * {@link RedisIdempotencyStore#COUNTER_MARGIN}; should it still be lost, the floor of now keeps tokens increasing unless
 * one key was claimed more than once per microsecond on average for that long, or the server's clock went back.
 */
final class Scripts {
    private Scripts() {
    }

    /**
     * Helpers shared by every script. {@code now_ms} returns the server's now (plus the offset) in milliseconds, and
     * in microseconds for the token floor (about 1.8e15 now: exact in Lua's doubles, which hold integers to 2^53, until
     * the 23rd century). Numbers are formatted with %d: Lua's own formatting writes 15 digits as 1.7e+15.
     */
    private static final String PRELUDE = """
            local function fmt(n) return string.format('%d', n) end
            local function now_ms(offset)
              local t = redis.call('TIME')
              local off = tonumber(offset)
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + off,
                tonumber(t[1]) * 1000000 + tonumber(t[2]) + off * 1000
            end
            local function keep_counter(tok, ttl)
              local c = tonumber(redis.call('GET', KEYS[2]) or '0')
              if c < tok then
                redis.call('SET', KEYS[2], fmt(tok), 'PX', fmt(ttl))
              else
                local pt = redis.call('PTTL', KEYS[2])
                if pt >= 0 and pt < ttl then redis.call('PEXPIRE', KEYS[2], fmt(ttl)) end
              end
            end
            local FIELDS = {'k', 's', 'p', 'o', 't', 'st', 'lu', 'ca', 'ea', 'r'}
            local function wake(what)
              redis.pcall('SPUBLISH', string.sub(KEYS[1], 1, -2) .. 'w', what)
            end
            """;

    /**
     * ARGV: key, payload hash, owner, lease ms, window ms, offset ms, margin ms, counter margin ms. Returns
     * {@code {0, now, record...}} when the claim loses to the live record, {@code {1, token}} when acquired over
     * nothing (absent or expired) and {@code {1, token, now, replaced record...}} for a takeover or supersede; now is
     * the store's time (the server's plus the offset), which the caller needs only beside a record.
     *
     * <p>Lean for the common case, a key seen for the first time (five commands: TIME, HMGET, SET, HSET, PEXPIRE):
     * no helper closures, no DEL of a record that is not there, and the counter read and written by one
     * {@code SET ... GET}, which proposes the floor (now in microseconds, or the replaced record's token plus one) and
     * returns the counter it replaced; only when that counter was not below the floor is it written again, one
     * above. Either way the token is the largest of the three, as documented on the class.
     */
    static final Script CLAIM = new Script("claim", """
            local t = redis.call('TIME')
            local off = tonumber(ARGV[6])
            local now = t[1] * 1000 + math.floor(t[2] / 1000) + off
            local rec = redis.call('HMGET', KEYS[1], 'k', 's', 'p', 'o', 't', 'st', 'lu', 'ca', 'ea', 'r')
            local live = rec[2] ~= false and not (rec[9] and now >= tonumber(rec[9]))
            if live then
              local claimable
              if rec[2] == 'IN_PROGRESS' then
                claimable = now >= tonumber(rec[7])
              else
                local window = tonumber(ARGV[5])
                claimable = window > 0 and now >= tonumber(rec[6]) + window
              end
              if not claimable then return {0, now, unpack(rec)} end
            end
            local lease = tonumber(ARGV[4])
            local margin = tonumber(ARGV[7])
            local tok = t[1] * 1000000 + t[2] + off * 1000
            if rec[5] and tonumber(rec[5]) + 1 > tok then tok = tonumber(rec[5]) + 1 end
            local cttl = string.format('%d', lease + margin + tonumber(ARGV[8]))
            local old = redis.call('SET', KEYS[2], string.format('%d', tok), 'PX', cttl, 'GET')
            if old and tonumber(old) + 1 > tok then
              tok = tonumber(old) + 1
              redis.call('SET', KEYS[2], string.format('%d', tok), 'PX', cttl)
            end
            local started = now
            if live and rec[2] == 'IN_PROGRESS' then started = tonumber(rec[6]) end
            if rec[1] or rec[2] then redis.call('DEL', KEYS[1]) end
            redis.call('HSET', KEYS[1], 'k', ARGV[1], 's', 'IN_PROGRESS', 'p', ARGV[2], 'o', ARGV[3],
              't', string.format('%d', tok), 'st', string.format('%d', started),
              'lu', string.format('%d', now + lease))
            redis.call('PEXPIRE', KEYS[1], string.format('%d', lease + margin))
            if live then return {1, tok, now, unpack(rec)} end
            return {1, tok}
            """);

    /**
     * ARGV: token, final state, how long the record is kept in ms (ttl plus jitter), encoded result, offset ms,
     * margin ms, counter margin ms. Returns 1 when the claim finished, 0 (nothing changed) when the token is not
     * the current one of a record in progress.
     *
     * <p>The counter is written with one unconditional {@code SET}: while the record is in progress under this
     * token, the counter holds this very token (the claim set both; only a claim that replaces the record raises
     * the counter, and then this token is no longer the record's) or was evicted, so writing the token back never
     * lowers it; its new TTL is the record's plus the counter margin, which keeps the counter outliving the record
     * even where it shortens an earlier, longer TTL (no other record of the key is left to need it).
     */
    static final Script FINISH = new Script("finish", """
            local cur = redis.call('HMGET', KEYS[1], 's', 't')
            if cur[1] ~= 'IN_PROGRESS' or cur[2] ~= ARGV[1] then return 0 end
            local t = redis.call('TIME')
            local now = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[5])
            local keep = tonumber(ARGV[3]) + tonumber(ARGV[6])
            redis.call('HSET', KEYS[1], 's', ARGV[2], 'ca', string.format('%d', now),
              'ea', string.format('%d', now + tonumber(ARGV[3])), 'r', ARGV[4])
            redis.call('PEXPIRE', KEYS[1], string.format('%d', keep))
            redis.call('SET', KEYS[2], ARGV[1], 'PX', string.format('%d', keep + tonumber(ARGV[7])))
            redis.pcall('SPUBLISH', string.sub(KEYS[1], 1, -2) .. 'w', ARGV[2])
            return 1
            """);

    /** ARGV: token, lease ms, offset ms, margin ms, counter margin ms. Returns 1 when renewed, 0 otherwise. */
    static final Script RENEW = new Script("renew", PRELUDE + """
            local cur = redis.call('HMGET', KEYS[1], 's', 't')
            if cur[1] ~= 'IN_PROGRESS' or cur[2] ~= ARGV[1] then return 0 end
            local now = now_ms(ARGV[3])
            local lease = tonumber(ARGV[2])
            local margin = tonumber(ARGV[4])
            redis.call('HSET', KEYS[1], 'lu', fmt(now + lease))
            redis.call('PEXPIRE', KEYS[1], fmt(lease + margin))
            keep_counter(tonumber(ARGV[1]), lease + margin + tonumber(ARGV[5]))
            return 1
            """);

    /** ARGV: token, counter margin ms. Returns 1 when the claim was released, 0 otherwise. */
    static final Script RELEASE = new Script("release", PRELUDE + """
            local cur = redis.call('HMGET', KEYS[1], 's', 't')
            if cur[1] ~= 'IN_PROGRESS' or cur[2] ~= ARGV[1] then return 0 end
            redis.call('DEL', KEYS[1])
            keep_counter(tonumber(ARGV[1]), tonumber(ARGV[2]))
            wake('RELEASED')
            return 1
            """);

    /** ARGV: counter margin ms. Removes the record whatever its state; the counter keeps its token. Returns 1 or 0. */
    static final Script DELETE = new Script("delete", PRELUDE + """
            local t = redis.call('HGET', KEYS[1], 't')
            if not t then return 0 end
            redis.call('DEL', KEYS[1])
            keep_counter(tonumber(t), tonumber(ARGV[1]))
            wake('DELETED')
            return 1
            """);

    /** ARGV: offset ms. Returns {@code {now, record...}}, the record's fields null when there is none. */
    static final Script GET = new Script("get", PRELUDE + """
            local now = now_ms(ARGV[1])
            return {now, unpack(redis.call('HMGET', KEYS[1], unpack(FIELDS)))}
            """);

    /** A script's text and its SHA-1, the name EVALSHA runs it by. */
    record Script(String name, String source, String sha) {
        Script(String name, String source) {
            this(name, source, sha1(source));
        }

        private static String sha1(String source) {
            try {
                return HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JVM has SHA-1", e);
            }
        }
    }
}
