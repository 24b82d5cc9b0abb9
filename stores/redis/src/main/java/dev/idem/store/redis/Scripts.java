package dev.idem.store.redis;

import io.lettuce.core.ScriptOutputType;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the store, one per operation: each runs as one atomic step on the server, reads the server's
 * {@code TIME} itself and touches only the two keys of one idempotency key, {@code KEYS[1]} (the record) and
 * {@code KEYS[2]} (the key's token counter; a completion names it only when it writes it), which share a hash tag and
 * so a Cluster slot.
 *
 * <h2>The record</h2>
 * One string: a fixed header of {@value #HEADER} ASCII bytes, then the variable fields.
 * <pre>
 *  offset  length  field (numbers in decimal, zero-padded on the left)
 *       0       1  state: I (in progress), C (completed), F (failed)
 *       1      16  fencing token
 *      17      13  started at
 *      30      13  lease until
 *      43      13  completed at (zeros while in progress)
 *      56      13  expires at (zeros while in progress)
 *      69          "klen:plen:olen:", the byte lengths of the next three fields, then the key, the payload hash,
 *                  the owner and, for a finished record, the encoded result (to the end)
 * </pre>
 * Times in epoch milliseconds of the server's clock plus the offset passed in (zero outside tests): 13 digits hold
 * every millisecond to the year 2286, 16 digits every token Lua compares exactly (below 2^53, see Tokens).
 *
 * <p>Why this shape: Redis runs a script's commands on the cores the application may share, so the scripts' own work
 * is what a call costs beyond its round trips. A script reads the header's fields by position ({@code string.sub},
 * then {@code + 0} to make a number) and rewrites the record by concatenation, where MessagePack ({@code cmsgpack},
 * the earlier format) cost about 25,000 of the server's instructions per fresh call to encode and decode. It never
 * looks at the variable fields: the client builds them ({@code ARGV}), and scripts return the record as the one
 * string it is, which the client parses ({@link RedisIdempotencyStore#record(byte[])}). An owner check is one plain
 * {@code string.find} (completion) or comparison (renew, release) of the first 17 bytes, state and token, with one
 * argument the client formats: {@code I} and the 16-digit token. One string rather than a hash of fields also because
 * one {@code GET} reads it and one {@code SET ... PX} writes it with its TTL, and it takes less memory.
 *
 * <h2>Commands</h2>
 * A fresh call runs seven commands inside Redis: the claim of a key seen for the first time {@code TIME},
 * {@code SET record NX GET} (writes the record unless there is one, and returns the one there is) and
 * {@code SET counter GET}; the completion {@code GET}, {@code TIME}, {@code SET} and {@code SPUBLISH}, and a second
 * {@code SET} of the counter only when the record is kept so long that the counter might outlive it by less than
 * {@link RedisIdempotencyStore#COUNTER_MIN_MARGIN}. A replay runs {@code TIME} and {@code SET ... NX GET}. TTLs are
 * passed as the strings {@code PX} takes, formatted by the client.
 *
 * <h2>Wake-ups</h2>
 * Complete, fail, release and delete end by publishing the new state on the key's channel, named as its record
 * {@code idem:{h}:r} ({@link RedisWakeups}: no name to build), with {@code SPUBLISH}, inside the script, so no write
 * that ends an execution goes unannounced. Sharded pub/sub because the channel carries the key's hash tag: in a
 * Cluster the message stays on the shard that holds the key (and the script may only publish in its own slot), where a
 * classic {@code PUBLISH} is broadcast to every node. Published with {@code pcall}, so a server without sharded pub/sub
 * (before 7.0) still applies the write; its waiters are found by their re-check.
 *
 * <h2>Tokens</h2>
 * A claim's token is the larger of the counter plus one (and the record's token plus one, should the counter have
 * been evicted) and the server's now in microseconds. Should the counter still be lost, the floor of now keeps tokens
 * increasing unless one key was claimed more than once per microsecond on average for that long, or the server's clock
 * went back. Tokens are compared as Lua numbers (doubles), exact for integers up to 2^53: microseconds of the epoch
 * stay below that until the 23rd century.
 *
 * <p>The counter outlives the record by at least {@link RedisIdempotencyStore#COUNTER_MIN_MARGIN}. A claim writes it
 * with a TTL of the lease plus {@link RedisIdempotencyStore#TTL_MARGIN} plus
 * {@link RedisIdempotencyStore#COUNTER_MARGIN}, and a renewal keeps it at least that long from its own now, so while a
 * record is in progress its counter lives at least until its {@code lease until} plus both margins. A completion
 * finds the record in progress, so no later than its Redis TTL, {@code lease until} plus the TTL margin; it keeps the
 * record {@code kept} (the ttl with its jitter) plus the TTL margin from then, which the counter outlives by at least
 * {@code COUNTER_MARGIN - TTL_MARGIN - kept}. So the completion leaves the counter as it is when {@code kept} is at most
 * {@code COUNTER_MARGIN - COUNTER_MIN_MARGIN - TTL_MARGIN} (11 hours 59 minutes), and otherwise writes it again, the
 * record's TTL plus {@link RedisIdempotencyStore#COUNTER_MARGIN}: the client decides, knowing {@code kept}, and the
 * script reads nothing for it. (All in the server's own clock, whatever the test offset.) Release, delete and renew
 * raise a shorter counter TTL with {@code PTTL} and {@code PEXPIRE} (rare operations, kept simple).
 *
 * <p>The margins are constants written into the scripts' text rather than arguments: fewer arguments to encode, send
 * and convert.
 */
final class Scripts {
    private Scripts() {
    }

    /** Where the header's fields start (0-based; the scripts' {@code string.sub} counts from 1), as the table above. */
    static final int TOKEN_AT = 1;
    static final int STARTED_AT = 17;
    static final int LEASE_UNTIL_AT = 30;
    static final int COMPLETED_AT = 43;
    static final int EXPIRES_AT = 56;
    /** The digits of a token and of a time in the header. */
    static final int TOKEN_DIGITS = 16;
    static final int TIME_DIGITS = 13;
    /** The header's length in bytes; the variable fields start after it. */
    static final int HEADER = 69;

    /** The record's Redis TTL beyond its logical expiry or lease, in ms, as a Lua literal. */
    private static final String MARGIN = Long.toString(RedisIdempotencyStore.TTL_MARGIN.toMillis());
    /** How much longer a claim keeps the counter than its record, in ms, as a Lua literal. */
    private static final String COUNTER_MARGIN = Long.toString(RedisIdempotencyStore.COUNTER_MARGIN.toMillis());

    /**
     * Helpers shared by the scripts other than claim and finish (which are written out for the common case).
     * {@code now_ms} returns the server's now (plus the offset) in milliseconds; {@code token} reads a record's token.
     * Numbers are formatted with %d: Lua's own formatting writes 15 digits as 1.7e+15.
     */
    private static final String PRELUDE = """
            local function fmt(n) return string.format('%d', n) end
            local function now_ms(offset)
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(offset)
            end
            local function token(raw) return tonumber(string.sub(raw, 2, 17)) end
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
              redis.pcall('SPUBLISH', KEYS[1], what)
            end
            """;

    /**
     * ARGV: the record's variable fields ({@code klen:plen:olen:key hash owner}), the record's PX (the lease plus the
     * TTL margin), the counter's PX (that plus the counter margin), and only when either is not zero the window ms and
     * then the offset ms (missing arguments read as zero: each argument costs the server a string and a table slot).
     * Returns the token alone (an integer, not a list: cheaper to build and to send) when acquired over nothing
     * (absent or expired), {@code {0, now, record}} when the claim loses to the live record, and
     * {@code {1, token, now, replaced record}} for a takeover or supersede; now is the store's time (the server's plus
     * the offset), which the caller needs only beside a record.
     *
     * <p>Lean for the common case, a key seen for the first time (three commands): the record is written by
     * {@code SET ... NX GET}, with the floor of the token (now in microseconds), and the counter by {@code SET ... GET}
     * with the token as the record's header spells it, and returns the counter it replaced; only when that counter was
     * not below the floor are both written again, one above it. When a record was there, {@code SET NX} wrote nothing
     * and returned it: the script decides from its header whether the claim loses (the record is returned as it is)
     * or replaces it. The header is formatted once ({@code string.format} is the dearest call a script makes), and
     * strings become numbers by arithmetic ({@code s + 0}, one conversion) rather than {@code tonumber} (two).
     */
    static final Script CLAIM = new Script("claim", ScriptOutputType.MULTI, """
            local t = redis.call('TIME')
            local us = t[2] + 0
            local tok = t[1] * 1000000 + us + (ARGV[5] or 0) * 1000
            local now = (tok - us % 1000) / 1000
            local lu = now + ARGV[2] - MARGIN
            local rec = string.format('I%016d%013d%013d00000000000000000000000000', tok, now, lu) .. ARGV[1]
            local raw = redis.call('SET', KEYS[1], rec, 'PX', ARGV[2], 'NX', 'GET')
            if not raw then
              local c = redis.call('SET', KEYS[2], string.sub(rec, 2, 17), 'PX', ARGV[3], 'GET')
              if c and c + 0 >= tok then
                tok = c + 1
                redis.call('SET', KEYS[2], string.format('%d', tok), 'PX', ARGV[3])
                redis.call('SET', KEYS[1], string.format('I%016d%013d%013d00000000000000000000000000', tok, now, lu)
                  .. ARGV[1], 'PX', ARGV[2])
              end
              return tok
            end
            local s = string.sub(raw, 1, 1)
            local live = s == 'I' or now < string.sub(raw, 57, 69) + 0
            local started = now
            if live then
              if s == 'I' then
                if now < string.sub(raw, 31, 43) + 0 then return {0, now, raw} end
                started = string.sub(raw, 18, 30) + 0
              else
                local window = (ARGV[4] or 0) + 0
                if window <= 0 or now < string.sub(raw, 18, 30) + window then return {0, now, raw} end
              end
            end
            local rt = string.sub(raw, 2, 17) + 0
            if rt + 1 > tok then tok = rt + 1 end
            local c = redis.call('SET', KEYS[2], string.format('%d', tok), 'PX', ARGV[3], 'GET')
            if c and c + 1 > tok then
              tok = c + 1
              redis.call('SET', KEYS[2], string.format('%d', tok), 'PX', ARGV[3])
            end
            redis.call('SET', KEYS[1], string.format('I%016d%013d%013d00000000000000000000000000', tok, started, lu)
              .. ARGV[1], 'PX', ARGV[2])
            if live then return {1, tok, now, raw} end
            return tok
            """);

    /**
     * Complete ({@link #COMPLETE}) or fail ({@link #FAIL}); the final state is written into the script's text, which
     * saves an argument. KEYS: the record, and the counter only when the counter is written. ARGV: {@code I} and the
     * 16-digit token, the record's PX (how long it is kept, the ttl plus jitter, plus the TTL margin), the encoded
     * result, then, only when needed, the offset ms and the counter's PX.
     * Returns 1 when the claim finished, 0 (nothing changed) when the token is not the current one of a record in
     * progress.
     *
     * <p>The new record is the old one's token, started at and lease until, the two new times, the old variable fields
     * and the result. The counter is written only when the client sends its PX (the record's plus
     * {@link RedisIdempotencyStore#COUNTER_MARGIN}), which it does when the counter might otherwise outlive the record
     * by less than {@link RedisIdempotencyStore#COUNTER_MIN_MARGIN} (see the class); then with one unconditional
     * {@code SET} of this token, since while the record is in progress under this token the counter holds this very
     * token (the claim set both; only a claim that replaces the record raises the counter, and then this token is no
     * longer the record's) or was evicted, so writing it back never lowers it.
     */
    private static final String FINISH = """
            local raw = redis.call('GET', KEYS[1])
            if not raw or string.find(raw, ARGV[1], 1, true) ~= 1 then return 0 end
            local t = redis.call('TIME')
            local us = t[2] + 0
            local now = (t[1] * 1000000 + us - us % 1000) / 1000 + (ARGV[4] or 0)
            local ea = now + ARGV[2] - MARGIN
            redis.call('SET', KEYS[1], 'STATE' .. string.sub(raw, 2, 43) .. string.format('%013d%013d', now, ea)
              .. string.sub(raw, 70) .. ARGV[3], 'PX', ARGV[2])
            if ARGV[5] then redis.call('SET', KEYS[2], string.format('%d', string.sub(raw, 2, 17)), 'PX', ARGV[5]) end
            redis.pcall('SPUBLISH', KEYS[1], 'STATE')
            return 1
            """;

    /** Completes: see {@link #FINISH}. */
    static final Script COMPLETE = new Script("complete", ScriptOutputType.INTEGER, FINISH.replace("STATE", "C"));

    /** Fails: see {@link #FINISH}. */
    static final Script FAIL = new Script("fail", ScriptOutputType.INTEGER, FINISH.replace("STATE", "F"));

    /** ARGV: {@code I} and the 16-digit token, lease ms, offset ms. Returns 1 when renewed, 0 otherwise. */
    static final Script RENEW = new Script("renew", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw or string.sub(raw, 1, 17) ~= ARGV[1] then return 0 end
            local now = now_ms(ARGV[3])
            local lease = tonumber(ARGV[2])
            redis.call('SET', KEYS[1], string.sub(raw, 1, 30) .. string.format('%013d', now + lease)
              .. string.sub(raw, 44), 'PX', fmt(lease + MARGIN))
            keep_counter(token(raw), lease + MARGIN + COUNTER_MARGIN)
            return 1
            """);

    /** ARGV: {@code I} and the 16-digit token. Returns 1 when the claim was released, 0 otherwise. */
    static final Script RELEASE = new Script("release", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw or string.sub(raw, 1, 17) ~= ARGV[1] then return 0 end
            redis.call('DEL', KEYS[1])
            keep_counter(token(raw), COUNTER_MARGIN)
            wake('RELEASED')
            return 1
            """);

    /** No ARGV. Removes the record whatever its state; the counter keeps its token. Returns 1 or 0. */
    static final Script DELETE = new Script("delete", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw then return 0 end
            redis.call('DEL', KEYS[1])
            keep_counter(token(raw), COUNTER_MARGIN)
            wake('DELETED')
            return 1
            """);

    /** ARGV: offset ms. Returns {@code {now, record}}, or {@code {now}} when there is no record. */
    static final Script GET = new Script("get", ScriptOutputType.MULTI, PRELUDE + """
            local now = now_ms(ARGV[1])
            local raw = redis.call('GET', KEYS[1])
            if not raw then return {now} end
            return {now, raw}
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
