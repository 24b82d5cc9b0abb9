package dev.idem.store.redis;

import io.lettuce.core.ScriptOutputType;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the store, one per operation: each runs as one atomic step on the server, reads the server's
 * {@code TIME} itself and touches only the two keys of one idempotency key, {@code KEYS[1]} (the record) and
 * {@code KEYS[2]} (the key's token counter), which share a hash tag and so a Cluster slot.
 *
 * <p>The record is one string, the MessagePack encoding (Redis's {@code cmsgpack}) of its fields in this order:
 * key, state, payload hash, owner, fencing token, started at, lease until, and for a finished record completed at,
 * expires at and the encoded result; times in epoch milliseconds of the server's clock plus the offset passed in (zero
 * outside tests), numbers as MessagePack integers. One string rather than a hash of fields because Redis runs a
 * script's commands on the cores the application may share, and each command a script calls costs about a
 * microsecond of the server's CPU beyond its own work: a string is read by one {@code GET} and written, with its
 * TTL, by one {@code SET ... PX}, where a hash needs {@code HSET} and {@code PEXPIRE}; it also takes less memory.
 * Scripts return a record as its ten fields, {@code false} (a null reply) for those a record in progress lacks.
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
 * Tokens are compared as Lua numbers (doubles), exact for integers up to 2^53: microseconds of the epoch stay below
 * that until the 23rd century.
 *
 * <p>The margins ({@link RedisIdempotencyStore#TTL_MARGIN}, {@link RedisIdempotencyStore#COUNTER_MARGIN}) are
 * constants written into the scripts' text rather than arguments: fewer arguments to encode, send and convert.
 */
final class Scripts {
    private Scripts() {
    }

    /** The record's Redis TTL beyond its logical expiry or lease, in ms, as a Lua literal. */
    private static final String MARGIN = Long.toString(RedisIdempotencyStore.TTL_MARGIN.toMillis());
    /** How much longer the counter lives than the record, in ms, as a Lua literal. */
    private static final String COUNTER_MARGIN = Long.toString(RedisIdempotencyStore.COUNTER_MARGIN.toMillis());

    /**
     * Helpers shared by the scripts other than claim and finish (which are written out for the common case).
     * {@code now_ms} returns the server's now (plus the offset) in milliseconds. Numbers are formatted with %d: Lua's
     * own formatting writes 15 digits as 1.7e+15.
     */
    private static final String PRELUDE = """
            local function fmt(n) return string.format('%d', n) end
            local function now_ms(offset)
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(offset)
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
            local function wake(what)
              redis.pcall('SPUBLISH', string.sub(KEYS[1], 1, -2) .. 'w', what)
            end
            """;

    /**
     * ARGV: key, payload hash, owner, lease ms, window ms, offset ms. Returns {@code {0, now, record...}} when the
     * claim loses to the live record, {@code {1, token}} when acquired over nothing (absent or expired) and
     * {@code {1, token, now, replaced record...}} for a takeover or supersede; now is the store's time (the server's
     * plus the offset), which the caller needs only beside a record.
     *
     * <p>Lean for the common case, a key seen for the first time (four commands: TIME, GET, SET, SET): no helper
     * closures, and the counter read and written by one {@code SET ... GET}, which proposes the floor (now in
     * microseconds, or the replaced record's token plus one) and returns the counter it replaced; only when that
     * counter was not below the floor is it written again, one above. Either way the token is the largest of the
     * three, as documented on the class. The record's {@code SET} replaces whatever was there, and its TTL.
     */
    static final Script CLAIM = new Script("claim", ScriptOutputType.MULTI, """
            local t = redis.call('TIME')
            local off = tonumber(ARGV[6])
            local now = t[1] * 1000 + math.floor(t[2] / 1000) + off
            local raw = redis.call('GET', KEYS[1])
            local k, s, p, o, rt, st, lu, ca, ea, r
            local live = false
            if raw then
              k, s, p, o, rt, st, lu, ca, ea, r = cmsgpack.unpack(raw)
              live = not (ea and now >= ea)
              if live then
                local claimable
                if s == 'IN_PROGRESS' then
                  claimable = now >= lu
                else
                  local window = tonumber(ARGV[5])
                  claimable = window > 0 and now >= st + window
                end
                if not claimable then
                  return {0, now, k, s, p, o, rt, st, lu, ca or false, ea or false, r or false}
                end
              end
            end
            local lease = tonumber(ARGV[4])
            local tok = t[1] * 1000000 + t[2] + off * 1000
            if rt and rt + 1 > tok then tok = rt + 1 end
            local cttl = string.format('%d', lease + MARGIN + COUNTER_MARGIN)
            local old = redis.call('SET', KEYS[2], string.format('%d', tok), 'PX', cttl, 'GET')
            if old and tonumber(old) + 1 > tok then
              tok = tonumber(old) + 1
              redis.call('SET', KEYS[2], string.format('%d', tok), 'PX', cttl)
            end
            local started = now
            if live and s == 'IN_PROGRESS' then started = st end
            redis.call('SET', KEYS[1], cmsgpack.pack(ARGV[1], 'IN_PROGRESS', ARGV[2], ARGV[3], tok, started,
              now + lease), 'PX', string.format('%d', lease + MARGIN))
            if live then return {1, tok, now, k, s, p, o, rt, st, lu, ca or false, ea or false, r or false} end
            return {1, tok}
            """);

    /**
     * ARGV: token, final state, how long the record is kept in ms (ttl plus jitter), encoded result, offset ms. Returns
     * 1 when the claim finished, 0 (nothing changed) when the token is not the current one of a record in progress.
     *
     * <p>The counter is written with one unconditional {@code SET}: while the record is in progress under this
     * token, the counter holds this very token (the claim set both; only a claim that replaces the record raises
     * the counter, and then this token is no longer the record's) or was evicted, so writing the token back never
     * lowers it; its new TTL is the record's plus the counter margin, which keeps the counter outliving the record
     * even where it shortens an earlier, longer TTL (no other record of the key is left to need it).
     */
    static final Script FINISH = new Script("finish", ScriptOutputType.INTEGER, """
            local raw = redis.call('GET', KEYS[1])
            if not raw then return 0 end
            local k, s, p, o, t, st, lu = cmsgpack.unpack(raw)
            if s ~= 'IN_PROGRESS' or t ~= tonumber(ARGV[1]) then return 0 end
            local tm = redis.call('TIME')
            local now = tm[1] * 1000 + math.floor(tm[2] / 1000) + tonumber(ARGV[5])
            local keep = tonumber(ARGV[3])
            redis.call('SET', KEYS[1], cmsgpack.pack(k, ARGV[2], p, o, t, st, lu, now, now + keep, ARGV[4]),
              'PX', string.format('%d', keep + MARGIN))
            redis.call('SET', KEYS[2], ARGV[1], 'PX', string.format('%d', keep + MARGIN + COUNTER_MARGIN))
            redis.pcall('SPUBLISH', string.sub(KEYS[1], 1, -2) .. 'w', ARGV[2])
            return 1
            """);

    /** ARGV: token, lease ms, offset ms. Returns 1 when renewed, 0 otherwise. */
    static final Script RENEW = new Script("renew", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw then return 0 end
            local k, s, p, o, t, st = cmsgpack.unpack(raw)
            if s ~= 'IN_PROGRESS' or t ~= tonumber(ARGV[1]) then return 0 end
            local now = now_ms(ARGV[3])
            local lease = tonumber(ARGV[2])
            redis.call('SET', KEYS[1], cmsgpack.pack(k, s, p, o, t, st, now + lease), 'PX', fmt(lease + MARGIN))
            keep_counter(t, lease + MARGIN + COUNTER_MARGIN)
            return 1
            """);

    /** ARGV: token. Returns 1 when the claim was released, 0 otherwise. */
    static final Script RELEASE = new Script("release", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw then return 0 end
            local k, s, p, o, t = cmsgpack.unpack(raw)
            if s ~= 'IN_PROGRESS' or t ~= tonumber(ARGV[1]) then return 0 end
            redis.call('DEL', KEYS[1])
            keep_counter(t, COUNTER_MARGIN)
            wake('RELEASED')
            return 1
            """);

    /** No ARGV. Removes the record whatever its state; the counter keeps its token. Returns 1 or 0. */
    static final Script DELETE = new Script("delete", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw then return 0 end
            local k, s, p, o, t = cmsgpack.unpack(raw)
            redis.call('DEL', KEYS[1])
            keep_counter(t, COUNTER_MARGIN)
            wake('DELETED')
            return 1
            """);

    /** ARGV: offset ms. Returns {@code {now, record...}}, or {@code {now}} when there is no record. */
    static final Script GET = new Script("get", ScriptOutputType.MULTI, PRELUDE + """
            local now = now_ms(ARGV[1])
            local raw = redis.call('GET', KEYS[1])
            if not raw then return {now} end
            local k, s, p, o, t, st, lu, ca, ea, r = cmsgpack.unpack(raw)
            return {now, k, s, p, o, t, st, lu, ca or false, ea or false, r or false}
            """);

    /**
     * A script's text, its SHA-1 (the name EVALSHA runs it by) and how its reply is read: a list (MULTI) for the
     * scripts that return records, a plain integer for those that return 1 or 0, which Lettuce reads without building a
     * list.
     */
    record Script(String name, ScriptOutputType output, String source, String sha) {
        /** A script written with the margins' names, which stand for their values in the text run and hashed. */
        Script(String name, ScriptOutputType output, String source) {
            this(name, output, withMargins(source), sha1(withMargins(source)));
        }

        /** COUNTER_MARGIN first: MARGIN is part of its name. */
        private static String withMargins(String source) {
            return source.replace("COUNTER_MARGIN", COUNTER_MARGIN).replace("MARGIN", MARGIN);
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
