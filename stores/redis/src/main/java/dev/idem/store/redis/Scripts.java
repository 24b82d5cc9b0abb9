package dev.idem.store.redis;

import io.lettuce.core.ScriptOutputType;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the store, one per operation: each runs as one atomic step on the server, reads the server's
 * {@code TIME} itself and touches only the record of one idempotency key, {@code KEYS[1]}, and the claim also the token
 * counter of the record's bucket, {@code KEYS[2]}; the two share a hash tag and so a Cluster slot.
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
 * then {@code + 0} to make a number) and rewrites the record by concatenation, which costs the server far less than
 * encoding and decoding a structured value ({@code cmsgpack}, a hash) on every call would. It never looks at the
 * variable fields: the client builds them ({@code ARGV}), and scripts return the record as the one
 * string it is, which the client parses ({@link RecordFormat#record(byte[])}). An owner check is one plain
 * {@code string.find} (completion) or comparison (renew, release) of the first 17 bytes, state and token, with one
 * argument the client formats: {@code I} and the 16-digit token. One string rather than a hash of fields also because
 * one {@code GET} reads it and one {@code SET ... PX} writes it with its TTL, and it takes less memory.
 *
 * <h2>Commands</h2>
 * A fresh call runs seven commands inside Redis: the claim of a key seen for the first time {@code TIME},
 * {@code SET record NX GET} (writes the record unless there is one, and returns the one there is) and
 * {@code SET counter GET}; the completion {@code GET}, {@code TIME}, {@code SET} and {@code SPUBLISH}. A replay runs
 * {@code TIME} and {@code SET ... NX GET}. TTLs are passed as the strings {@code PX} takes, formatted by the client.
 * A call that carries several claims (or completions) reads {@code TIME} once for all of them.
 *
 * <h2>Wake-ups</h2>
 * Complete, fail, release and delete end by publishing the new state on the key's channel, named as its record
 * ({@link RedisWakeups}: no name to build), with {@code SPUBLISH}, inside the script, so no write that ends an
 * execution goes unannounced. Sharded pub/sub because the channel carries the record's hash tag: in a
 * Cluster the message stays on the shard that holds the key (and the script may only publish in its own slot), where a
 * classic {@code PUBLISH} is broadcast to every node. Published with {@code pcall}, so a server without sharded pub/sub
 * (before 7.0) still applies the write; its waiters are found by their re-check.
 *
 * <h2>Tokens</h2>
 * A claim's token is the larger of its bucket's counter plus one, the replaced record's token plus one, and the
 * server's now in microseconds; the claim writes it to the counter, so the counter holds the largest token any key of
 * the bucket was given. A bucket is one of {@value RedisIdempotencyStore#BUCKETS} groups of keys (by the first 12 bits
 * of the key's hash, which is also the hash tag of its record and counter), so its counter is never deleted and needs
 * no TTL: 4,096 small keys in all, where a counter per key would double the keys Redis holds and need a TTL of its own
 * that outlives its record. Tokens therefore increase for each key across release, expiry and delete, and across every
 * process, for as long as the counter is there. Should it be lost (a {@code FLUSHALL}, an eviction under an
 * {@code allkeys-*} policy), the floor of now keeps tokens increasing unless the server's clock went back. Tokens are
 * compared as Lua numbers (doubles), exact for integers up to 2^53: microseconds of the epoch stay below that until the
 * 23rd century.
 *
 * <p>So only a claim touches the counter: a completion, failure, renewal, release or delete leaves it as it is, since
 * it already holds this record's token or a larger one.
 *
 * <p>The TTL margin is a constant written into the scripts' text rather than an argument: fewer arguments to encode,
 * send and convert.
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

    /**
     * Helpers shared by the scripts other than claim and finish (which are written out for the common case).
     * {@code now_ms} returns the server's now (plus the offset) in milliseconds; {@code wake} publishes the new state.
     * Numbers are formatted with %d: Lua's own formatting writes 15 digits as 1.7e+15.
     */
    private static final String PRELUDE = """
            local function fmt(n) return string.format('%d', n) end
            local function now_ms(offset)
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(offset)
            end
            local function wake(what)
              redis.pcall('SPUBLISH', KEYS[1], what)
            end
            """;

    /**
     * Claims one key or several, each as if alone, in the order given (one {@code TIME} for all). KEYS: per claim, the
     * record and its bucket's counter. ARGV: the offset ms, then per claim the record's variable fields
     * ({@code klen:plen:olen:key hash owner}), the record's PX (the lease plus the TTL margin) and the window ms (0 for
     * none). Returns one reply per claim: the token alone (an integer) when acquired over nothing (absent or expired),
     * {@code {0, now, record}} when the claim loses to the live record, {@code {1, token, now, replaced record}}
     * for a takeover or supersede, and {@code {-1, why}} when the claim could not be made (see below); now is the
     * store's time (the server's plus the offset), which the caller needs only beside a record. Several claims in one
     * call are how the store gathers concurrent callers' claims into one round trip ({@link ScriptBatcher}); a claim
     * of a key an earlier claim of the same call took finds that record.
     *
     * <p>Lean for the common case, a key seen for the first time (three commands): the record is written by
     * {@code SET ... NX GET}, with the floor of the token (now in microseconds), and the bucket's counter by
     * {@code SET ... GET} with the token as the record's header spells it, which returns the counter it replaced; only
     * when that counter was not below the floor (another key of the bucket drew a token in this microsecond, or the
     * clock went back) are both written again, one above it. When a record was there, {@code SET NX} wrote nothing
     * and returned it: the script decides from its header whether the claim loses (the record is returned as it is)
     * or replaces it. The header is formatted once ({@code string.format} is the dearest call a script makes), and
     * strings become numbers by arithmetic ({@code s + 0}, one conversion) rather than {@code tonumber} (two).
     *
     * <p><b>One claim fails alone.</b> Redis keeps what a script wrote before an error and stops at it, so an error
     * must neither end the call (the claims after it would not run, and their callers would be told they failed) nor
     * leave part of its claim written. A value that is not this store's under a claim's keys is such an error: a
     * record name holding another type ({@code WRONGTYPE} before anything is written) or a string whose header cannot
     * be read (an error in the arithmetic, before anything is written), or a counter that is not a number. Each claim
     * runs under Lua's {@code pcall}, which catches both kinds (a {@code redis.call} error and a Lua one) and makes
     * the claim's reply {@code {-1, why}}, why naming the Redis key; the counter, the one key written before it is
     * read, is read by {@code redis.pcall} (an error reply, not a raised error) and checked with {@code tonumber}, and
     * a counter that is not the store's is put back as it was (its value; a TTL it had is lost) and the record this
     * claim wrote is deleted, so the failed claim leaves nothing behind.
     */
    static final Script CLAIM = new Script("claim", ScriptOutputType.MULTI, """
            local t = redis.call('TIME')
            local us = t[2] + 0
            local floor = t[1] * 1000000 + us + ARGV[1] * 1000
            local now = (floor - us % 1000) / 1000
            local function draw(ck, text, tok)
              local c = redis.pcall('SET', ck, text, 'GET')
              if not c then return tok end
              if type(c) == 'table' then return nil, c.err end
              local n = tonumber(c)
              if not n then
                redis.call('SET', ck, c)
                return nil, 'holds a value that is not a token counter of this store'
              end
              if n >= tok then
                tok = n + 1
                redis.call('SET', ck, string.format('%d', tok))
              end
              return tok
            end
            local function claim(rk, ck, fields, px, window)
              local tok = floor
              local lu = now + px - MARGIN
              local rec = string.format('I%016d%013d%013d00000000000000000000000000', tok, now, lu) .. fields
              local raw = redis.call('SET', rk, rec, 'PX', px, 'NX', 'GET')
              if not raw then
                local drawn, why = draw(ck, string.sub(rec, 2, 17), tok)
                if not drawn then
                  redis.call('DEL', rk)
                  return {-1, ck .. ': ' .. why}
                end
                if drawn ~= tok then
                  redis.call('SET', rk, string.format('I%016d%013d%013d00000000000000000000000000', drawn, now, lu)
                    .. fields, 'PX', px)
                end
                return drawn
              end
              local s = string.sub(raw, 1, 1)
              local live = s == 'I' or now < string.sub(raw, 57, 69) + 0
              local started = now
              if live then
                if s == 'I' then
                  if now < string.sub(raw, 31, 43) + 0 then return {0, now, raw} end
                  started = string.sub(raw, 18, 30) + 0
                elseif window <= 0 or now < string.sub(raw, 18, 30) + window then
                  return {0, now, raw}
                end
              end
              local rt = string.sub(raw, 2, 17) + 0
              if rt + 1 > tok then tok = rt + 1 end
              local drawn, why = draw(ck, string.format('%d', tok), tok)
              if not drawn then return {-1, ck .. ': ' .. why} end
              redis.call('SET', rk, string.format('I%016d%013d%013d00000000000000000000000000', drawn, started, lu)
                .. fields, 'PX', px)
              if live then return {1, drawn, now, raw} end
              return drawn
            end
            local out = {}
            for i = 1, #KEYS / 2 do
              local rk = KEYS[2 * i - 1]
              local ok, r = pcall(claim, rk, KEYS[2 * i], ARGV[3 * i - 1], ARGV[3 * i], ARGV[3 * i + 1] + 0)
              if not ok then
                if type(r) == 'table' then r = tostring(r.err) end
                if not string.find(r, '^%u+ ') then
                  r = 'holds a value that is not a record of this store (' .. r .. ')'
                end
                r = {-1, rk .. ': ' .. r}
              end
              out[i] = r
            end
            return out
            """);

    /** The keys and arguments of one claim in {@link #CLAIM}: the record and the counter; fields, PX, window. */
    static final int CLAIM_KEYS = 2;
    static final int CLAIM_ARGS = 3;

    /**
     * Completes ({@link #COMPLETE}) or fails ({@link #FAIL}) one claim or several, each as if alone; the final state is
     * written into the script's text, which saves an argument. KEYS: per claim, the record. ARGV: the offset ms, then
     * per claim {@code I} and the 16-digit token, the record's PX (how long it is kept, the ttl plus jitter, plus the
     * TTL margin) and the encoded result. Returns one reply per claim: 1 when it finished, 0 (nothing changed) when the
     * token is not the current one of a record in progress, {@code {-1, why}} when the record's name holds a value
     * that is not a string (see below).
     *
     * <p>The new record is the old one's token, started at and lease until, the two new times, the old variable fields
     * and the result. The counter is not touched: it already holds this token or a larger one (see the class).
     *
     * <p>One completion fails alone, as a claim does ({@link #CLAIM}): a record name holding another type than a
     * string makes its {@code GET} fail before anything is written, and that completion's reply is {@code {-1, why}}
     * ({@code redis.pcall}, so the others run); a string that is not a record does not start with the owner's state
     * and token, so it is left as it is (0).
     */
    private static final String FINISH = """
            local t = redis.call('TIME')
            local us = t[2] + 0
            local now = (t[1] * 1000000 + us - us % 1000) / 1000 + ARGV[1]
            local out = {}
            for i = 1, #KEYS do
              local rk, px = KEYS[i], ARGV[3 * i]
              local raw = redis.pcall('GET', rk)
              if type(raw) == 'table' then
                out[i] = {-1, rk .. ': ' .. raw.err}
              elseif not raw or string.find(raw, ARGV[3 * i - 1], 1, true) ~= 1 then
                out[i] = 0
              else
                redis.call('SET', rk, 'STATE' .. string.sub(raw, 2, 43)
                  .. string.format('%013d%013d', now, now + px - MARGIN) .. string.sub(raw, 70) .. ARGV[3 * i + 1],
                  'PX', px)
                redis.pcall('SPUBLISH', rk, 'STATE')
                out[i] = 1
              end
            end
            return out
            """;

    /** The keys and arguments of one claim in {@link #FINISH}: the record; owner check, PX, result. */
    static final int FINISH_KEYS = 1;
    static final int FINISH_ARGS = 3;

    /** Completes: see {@link #FINISH}. */
    static final Script COMPLETE = new Script("complete", ScriptOutputType.MULTI, FINISH.replace("STATE", "C"));

    /** Fails: see {@link #FINISH}. */
    static final Script FAIL = new Script("fail", ScriptOutputType.MULTI, FINISH.replace("STATE", "F"));

    /** ARGV: {@code I} and the 16-digit token, lease ms, offset ms. Returns 1 when renewed, 0 otherwise. */
    static final Script RENEW = new Script("renew", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw or string.sub(raw, 1, 17) ~= ARGV[1] then return 0 end
            local now = now_ms(ARGV[3])
            local lease = tonumber(ARGV[2])
            redis.call('SET', KEYS[1], string.sub(raw, 1, 30) .. string.format('%013d', now + lease)
              .. string.sub(raw, 44), 'PX', fmt(lease + MARGIN))
            return 1
            """);

    /** ARGV: {@code I} and the 16-digit token. Returns 1 when the claim was released, 0 otherwise. */
    static final Script RELEASE = new Script("release", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw or string.sub(raw, 1, 17) ~= ARGV[1] then return 0 end
            redis.call('DEL', KEYS[1])
            wake('RELEASED')
            return 1
            """);

    /** No ARGV. Removes the record whatever its state (the counter keeps its tokens). Returns 1 or 0. */
    static final Script DELETE = new Script("delete", ScriptOutputType.INTEGER, PRELUDE + """
            local raw = redis.call('GET', KEYS[1])
            if not raw then return 0 end
            redis.call('DEL', KEYS[1])
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
        /** A script written with the margin's name, which stands for its value in the text run and hashed. */
        Script(String name, ScriptOutputType output, String source) {
            this(name, output, source.replace("MARGIN", MARGIN), sha1(source.replace("MARGIN", MARGIN)));
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
