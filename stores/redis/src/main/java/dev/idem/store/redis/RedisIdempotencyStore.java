package dev.idem.store.redis;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.RecordState;
import dev.idem.store.TtlJitter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.RedisClusterURIUtil;
import jakarta.annotation.Nullable;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

// The public store is its documented contract (this javadoc), its Builder and its operations; apart are the encoding of
// script arguments (ScriptArguments), the reading of replies (ScriptReplies), key names (RedisKeyNames), the record's
// byte format (RecordFormat), the connection's lifecycle (StoreConnection) and the gathering of calls (ScriptBatcher).
/**
 * An {@link IdempotencyStore} in Redis (standalone; Sentinel through a {@code redis-sentinel://} URI; Cluster), shared
 * by every process that uses the server. Built on Lettuce.
 *
 * <p><b>Keys.</b> An idempotency key {@code K} is named by {@code h}, the first 128 bits of the SHA-256 of K's UTF-8
 * bytes in hex (32 digits; two keys share them with a chance of about 2^-64 in 2^32 keys), and belongs to the bucket
 * {@code b}, the first 3 of those digits (one of {@value #BUCKETS}). Its record is the string {@code p:{b}:h},
 * holding K exactly beside the record's fields ({@link Scripts}); the bucket's fencing-token counter is
 * {@code p:{b}:t} ({@link RedisKeyNames}); its wake-up channel is named as its record ({@link RedisWakeups}). {@code p}
 * is the store's prefix, {@value #DEFAULT_PREFIX} unless {@link Builder#prefix(String) set}, so two applications
 * sharing a server (and a database) keep apart by their prefixes. The hash tag {@code {b}} puts a record and its
 * counter in one Cluster slot, and spreads the keys over 4,096 tags, so over the masters of a Cluster.
 *
 * <p><b>One atomic step per operation.</b> Claim, complete, fail, renew, release, delete and get are each one Lua
 * script run by {@code EVALSHA} (loaded on first use, and again when the server answers {@code NOSCRIPT}), so each is
 * one round trip; a lost claim returns the record it lost to in that same round trip. Every write after a claim is
 * guarded by the claim's fencing token inside its script. On one server (standalone or Sentinel), the claims of
 * concurrent callers are gathered into one script call while the previous one is on its way, and so are completions
 * and failures ({@link ScriptBatcher}); each item is still applied atomically, as if alone, and one that cannot be
 * applied (a value that is not this store's under its Redis keys) fails its own caller only, naming the Redis key.
 *
 * <p><b>Time is the server's</b> ({@code TIME}, read inside each script, in milliseconds), so processes with skewed
 * clocks agree. Expiry is decided in the script from the record's {@code expiresAt}; the Redis TTL of a record is its
 * logical expiry (or lease) plus {@link #TTL_MARGIN}, so Redis only frees memory and never decides an outcome.
 *
 * <p><b>Tokens</b> come from the counter of the key's bucket, which every claim of a key of the bucket raises to the
 * token it gives, and which is never deleted (4,096 small keys in all, without a TTL), so they increase for each key
 * across release, expiry and deletion and across every process; a token is never below the server's now in
 * microseconds either, which keeps tokens increasing should a counter be lost.
 *
 * <p><b>Connection loss fails closed.</b> Every command waits at most the configured timeout and reports
 * {@link IdempotencyStoreException}. The store's own connection does not replay commands after a reconnect (a
 * replayed claim would find its own record and report it as another's): a connection that broke is dropped and the
 * next call opens a new one.
 *
 * <p><b>Cluster.</b> Each script runs on the master owning its keys' slot ({@code EVALSHA} routed by its first key),
 * is loaded there when that master answers NOSCRIPT, and reads that master's {@code TIME}: one key's times all come
 * from one clock, as long as its slot stays on that master.
 *
 * <p>Create one with {@link #builder(String)}, {@link #builder(RedisURI)}, {@link #builder(RedisClient)} or
 * {@link #builder(RedisClusterClient)}, or
 * configure the {@code redis} store ({@code idem.redis.uri}; see {@link RedisStoreProvider}).
 */
public final class RedisIdempotencyStore implements IdempotencyStore {

    /** The command timeout unless configured. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** How much longer Redis keeps a record than its logical expiry or lease: a late completion still finds it. */
    public static final Duration TTL_MARGIN = Duration.ofMinutes(1);
    /** How many buckets of keys there are, each with its token counter: 16^3, one per 3-hex-digit hash tag. */
    public static final int BUCKETS = 4096;
    /** The prefix of the store's Redis keys and channels unless {@link Builder#prefix(String) set}. */
    public static final String DEFAULT_PREFIX = "idem";
    /** The longest prefix: every record's name and channel carries it. */
    public static final int MAX_PREFIX_LENGTH = 64;

    private final StoreConnection connection;
    private final ScriptArguments arguments;
    private final ScriptReplies replies;
    private final Duration timeout;
    private final LongSupplier offsetMillis;
    private final RedisWakeups wakeups;
    /** Gather concurrent claims, completions and failures into one call each; null on a Cluster (see gathered). */
    @Nullable
    private final ScriptBatcher claims;
    @Nullable
    private final ScriptBatcher completions;
    @Nullable
    private final ScriptBatcher failures;

    private RedisIdempotencyStore(Builder b) {
        this.timeout = b.timeout;
        this.offsetMillis = b.offsetMillis;
        this.arguments = new ScriptArguments(b.prefix, b.offsetMillis);
        Connector connector = b.connector();
        this.connection = new StoreConnection(connector, timeout);
        String where = connection.where();
        this.replies = new ScriptReplies(where);
        boolean oneServer = !(connector instanceof ClusterConnector);
        this.claims = oneServer ? batcher(Scripts.CLAIM) : null;
        this.completions = oneServer ? batcher(Scripts.COMPLETE) : null;
        this.failures = oneServer ? batcher(Scripts.FAIL) : null;
        this.wakeups = new RedisWakeups(connector.client(), connector::connectPubSub, arguments::channel, timeout,
                where);
        try {
            connection.get(); // a misconfigured store fails at start, not at the first call
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * A store that opens its own client and connection to {@code uri}: {@code redis://[user:password@]host[:port][/db]},
     * {@code rediss://...} (TLS) or {@code redis-sentinel://[password@]host[:port][,host2[:port2]][/db]#master}; with
     * {@link Builder#cluster(boolean) cluster(true)}, {@code redis://} or {@code rediss://} with one or more seed nodes
     * of a Cluster, {@code redis://[user:password@]host1:port1[,host2:port2]}.
     *
     * @param uri the server's URI
     * @return a builder; {@link Builder#build()} connects
     * @throws IdempotencyConfigurationException when {@code uri} is not such a URI
     */
    public static Builder builder(String uri) {
        Objects.requireNonNull(uri, "uri");
        String scheme = uri.contains("://") ? uri.substring(0, uri.indexOf("://")) : "";
        if (!scheme.equals("redis") && !scheme.equals("rediss") && !scheme.equals("redis-sentinel")) {
            throw new IdempotencyConfigurationException("idem.redis.uri = \"" + redactText(uri) + "\" is not a Redis"
                    + " URI: redis://host:6379, rediss://host:6380 (TLS) or redis-sentinel://host:26379#master");
        }
        try {
            return new Builder(RedisURI.create(uri), uri, null, null);
        } catch (RuntimeException e) {
            throw new IdempotencyConfigurationException("idem.redis.uri = \"" + redactText(uri) + "\" cannot be read: "
                    + e.getMessage(), e);
        }
    }

    /**
     * A store that opens its own client and connection to {@code uri}; its timeout is set to the builder's.
     *
     * @param uri the server's URI (a copy is not made: the store sets its timeout)
     * @return a builder; {@link Builder#build()} connects
     */
    public static Builder builder(RedisURI uri) {
        return new Builder(Objects.requireNonNull(uri, "uri"), null, null, null);
    }

    /**
     * A store over a client the caller owns (and shuts down), created with its URI ({@code RedisClient.create(uri)}).
     * The store opens its own connection with {@link RedisClient#connect(io.lettuce.core.codec.RedisCodec)} and closes
     * only that. The client's options are the caller's: with Lettuce's default auto-reconnect, a command in flight
     * when the connection breaks may be sent again after the reconnect.
     *
     * @param client a client created with a default URI
     * @return a builder; {@link Builder#build()} connects
     */
    public static Builder builder(RedisClient client) {
        return new Builder(null, null, Objects.requireNonNull(client, "client"), null);
    }

    /**
     * A store over a Cluster client the caller owns (and shuts down), created with the seed URIs
     * ({@code RedisClusterClient.create(uris)}). The store opens its own Cluster connection and closes only that; each
     * script runs on the master owning its key's slot. The client's options are the caller's, as for
     * {@link #builder(RedisClient)}.
     *
     * @param client a Cluster client
     * @return a builder; {@link Builder#build()} connects
     */
    public static Builder builder(RedisClusterClient client) {
        return new Builder(null, null, null, Objects.requireNonNull(client, "client"));
    }

    /** Configures a {@link RedisIdempotencyStore}. */
    public static final class Builder {
        @Nullable
        private final RedisURI uri;
        /** The URI as written, which may name several Cluster seeds; null when built from a {@link RedisURI}. */
        @Nullable
        private final String text;
        @Nullable
        private final RedisClient client;
        @Nullable
        private final RedisClusterClient clusterClient;
        private boolean cluster;
        private Duration timeout = DEFAULT_TIMEOUT;
        private String prefix = DEFAULT_PREFIX;
        private LongSupplier offsetMillis = () -> 0L;

        private Builder(@Nullable RedisURI uri, @Nullable String text, @Nullable RedisClient client,
                        @Nullable RedisClusterClient clusterClient) {
            this.uri = uri;
            this.text = text;
            this.client = client;
            this.clusterClient = clusterClient;
        }

        /**
         * Whether the URI names a Redis Cluster (its seed nodes), {@code false} unless set: the store then keeps each
         * key on the master owning its slot and runs its scripts there. A store over a given client takes this from
         * the client's type instead.
         *
         * @param cluster true for a Cluster
         * @return this builder
         * @throws IdempotencyConfigurationException for a {@code redis-sentinel://} URI, or a given client of the
         *                                           other kind
         */
        public Builder cluster(boolean cluster) {
            if (uri == null) {
                if (cluster != (clusterClient != null)) {
                    throw new IdempotencyConfigurationException("idem.redis.cluster = " + cluster + " contradicts the"
                            + " given " + (clusterClient != null ? "RedisClusterClient" : "RedisClient"));
                }
            } else if (cluster && !uri.getSentinels().isEmpty()) {
                throw new IdempotencyConfigurationException("idem.redis.cluster = true cannot use the Sentinel URI "
                        + uri + ": give the Cluster's nodes as redis://host1:port1,host2:port2");
            }
            this.cluster = cluster;
            return this;
        }

        /**
         * How long a command (and a connection attempt) may take before the call fails with
         * {@link IdempotencyStoreException}, {@link #DEFAULT_TIMEOUT} unless set.
         *
         * @param timeout positive
         * @return this builder
         * @throws IdempotencyConfigurationException when {@code timeout} is zero or negative
         */
        public Builder timeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IdempotencyConfigurationException("idem.redis.timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * The prefix of every Redis key and channel of the store, {@value RedisIdempotencyStore#DEFAULT_PREFIX} unless
         * set: records are {@code prefix:{b}:h}, counters {@code prefix:{b}:t}. Stores with different prefixes on one
         * server (and database) never see each other's records, tokens or wake-ups. Give each application its own,
         * and its ACL user the patterns {@code ~prefix:*} and {@code &prefix:*}.
         *
         * @param prefix 1 to {@value RedisIdempotencyStore#MAX_PREFIX_LENGTH} ASCII letters, digits and
         *               {@code . _ / -}; no {@code :} (the store puts one after the prefix, so {@code ~a:*} of
         *               prefix {@code a} would cover prefix {@code a:b} too), no braces (they would change the keys'
         *               Cluster hash tag), no whitespace, no glob characters {@code * ? [ ]} (they would widen an
         *               ACL key pattern)
         * @return this builder
         * @throws IdempotencyConfigurationException when {@code prefix} is not such a prefix, naming it
         */
        public Builder prefix(String prefix) {
            this.prefix = KeyPrefix.valid(prefix);
            return this;
        }

        /** Tests only: milliseconds added to the server's now in every script, so a test moves the store's time. */
        Builder serverTimeOffset(LongSupplier offsetMillis) {
            this.offsetMillis = Objects.requireNonNull(offsetMillis, "offsetMillis");
            return this;
        }

        /**
         * Connects and returns the store.
         *
         * @return the store, owned and closed by the caller
         * @throws IdempotencyStoreException when the server cannot be reached within the timeout
         */
        public RedisIdempotencyStore build() {
            return new RedisIdempotencyStore(this);
        }

        private Connector connector() {
            if (client != null) {
                return new StandaloneConnector(client, null, false, timeout);
            }
            if (clusterClient != null) {
                return new ClusterConnector(clusterClient, "the given RedisClusterClient", false, timeout);
            }
            RedisURI u = Objects.requireNonNull(uri);
            if (!cluster) {
                return StandaloneConnector.owning(u, timeout);
            }
            return ClusterConnector.owning(text != null ? RedisClusterURIUtil.toRedisURIs(URI.create(text))
                    : List.of(u), timeout);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Operations

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        Objects.requireNonNull(request, "request");
        String key = request.key();
        RedisKeyNames names = RedisKeyNames.forThread();
        byte[][] keys = arguments.claimKeys(names, key);
        byte[] fields = arguments.claimFields(names, request);
        byte[] px = arguments.leasePx(request.lease().toMillis());
        Object reply = gathered("claim", key, Scripts.CLAIM, claims, keys, fields, px,
                ScriptArguments.window(request.window()));
        if (reply instanceof Long token) { // the token alone: nothing replaced, no store time to translate
            return new ClaimOutcome.Acquired(token, null);
        }
        List<?> found = (List<?>) reply;
        long status = (Long) found.get(0);
        if (status == ScriptReplies.NOT_APPLIED) {
            throw replies.notApplied("claim", key, found);
        }
        if (status == 0) { // {0, now, record}
            return new ClaimOutcome.Existing(Objects.requireNonNull(replies.record("claim", key, keys[0], found, 2),
                    "the claim lost to no record"), Instant.ofEpochMilli((Long) found.get(1)));
        }
        // {1, token, now, replaced}
        return new ClaimOutcome.Acquired((Long) found.get(1), replies.record("claim", key, keys[0], found, 3),
                Instant.ofEpochMilli((Long) found.get(2)));
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        return finish("complete", RecordState.COMPLETED, key, fencingToken, result, ttl);
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        return finish("fail", RecordState.FAILED, key, fencingToken, failure, failureTtl);
    }

    private boolean finish(String operation, RecordState state, String key, long fencingToken, byte[] encoded,
                           Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(encoded, "result");
        Objects.requireNonNull(ttl, "ttl");
        long keep = TtlJitter.expiresAt(Instant.EPOCH, ttl).toEpochMilli();
        // The argument is written to the socket before this returns, so the caller may reuse its array afterwards;
        // the stored copy is Redis's.
        byte[] px = ScriptArguments.recordPx(keep);
        boolean completing = state == RecordState.COMPLETED;
        Object reply = gathered(operation, key, completing ? Scripts.COMPLETE : Scripts.FAIL,
                completing ? completions : failures, arguments.recordKey(key), RecordFormat.owned(fencingToken), px,
                encoded.clone());
        if (reply instanceof List<?> refused) {
            throw replies.notApplied(operation, key, refused);
        }
        return ScriptReplies.applied((Long) reply);
    }

    @Override
    public boolean release(String key, long fencingToken) {
        Objects.requireNonNull(key, "key");
        return ScriptReplies.applied(run("release", key, Scripts.RELEASE, arguments.recordKey(key),
                RecordFormat.owned(fencingToken)));
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(lease, "lease");
        return ScriptReplies.applied(run("renew", key, Scripts.RENEW, arguments.recordKey(key),
                RecordFormat.owned(fencingToken), ScriptArguments.number(lease.toMillis()), arguments.offset()));
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        Objects.requireNonNull(key, "key");
        byte[][] names = arguments.recordKey(key);
        List<Object> reply = run("get", key, Scripts.GET, names, arguments.offset());
        IdempotencyRecord record = replies.record("get", key, names[0], reply, 1);
        if (record == null || record.isExpiredAt(Instant.ofEpochMilli((Long) reply.get(0)))) {
            return Optional.empty();
        }
        return Optional.of(record);
    }

    @Override
    public void delete(String key) {
        Objects.requireNonNull(key, "key");
        run("delete", key, Scripts.DELETE, arguments.recordKey(key));
    }

    /** Offered: see {@link RedisWakeups}; one pub/sub connection per store, opened by the first watch. */
    @Override
    public Optional<KeyWatch> watch(String key) {
        Objects.requireNonNull(key, "key");
        return wakeups.watch(key);
    }

    @Override
    public void close() {
        connection.close(wakeups::close);
    }

    /**
     * The store's now: the server's {@code TIME}, plus the test offset. On a Cluster, the time of the master owning the
     * slot of the empty key, each key's scripts reading their own master's clock.
     */
    Instant serverNow() {
        List<byte[]> time = connection.await("read the time", "", connection.get().time(arguments.recordKey("")[0]));
        long micros = Long.parseLong(ScriptReplies.text(time.get(0))) * 1_000_000L
                + Long.parseLong(ScriptReplies.text(time.get(1)));
        return Instant.ofEpochMilli(micros / 1_000 + offsetMillis.getAsLong());
    }

    /** How many claims wait for a call of the claim script on its way (for tests); standalone stores only. */
    int queuedClaims() {
        return Objects.requireNonNull(claims).queued();
    }

    /** Whether a call of the claim script is on its way (for tests); standalone stores only. */
    boolean claimsOnTheirWay() {
        return Objects.requireNonNull(claims).sending();
    }

    /** How many completions wait for a call of the complete script on its way (for tests); standalone only. */
    int queuedCompletions() {
        return Objects.requireNonNull(completions).queued();
    }

    /** Whether a call of the complete script is on its way (for tests); standalone stores only. */
    boolean completionsOnTheirWay() {
        return Objects.requireNonNull(completions).sending();
    }

    /** The connection the store uses now, for tests that drop it; standalone stores only. */
    StatefulRedisConnection<byte[], byte[]> currentConnection() {
        return ((StandaloneConnector.Standalone) connection.get()).connection();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Plumbing

    /**
     * One item of a script that handles many ({@link Scripts#CLAIM}, {@link Scripts#COMPLETE}, {@link Scripts#FAIL}):
     * {@code keys} and {@code args} are the item's, and its reply is returned. On a standalone server the item joins
     * the calls other threads are making ({@link ScriptBatcher}); on a Cluster, where one call may only touch one
     * slot, it goes alone.
     */
    private Object gathered(String operation, String key, Scripts.Script script, @Nullable ScriptBatcher batcher,
                            byte[][] keys, byte[]... args) {
        if (batcher == null) {
            byte[][] alone = new byte[args.length + 1][];
            alone[0] = arguments.offset();
            System.arraycopy(args, 0, alone, 1, args.length);
            List<Object> replies = run(operation, key, script, keys, alone);
            return replies.get(0);
        }
        connection.get(operation, key); // connects, if need be, on the caller's thread: the batcher never does
        try {
            return connection.await(operation, key, batcher.submit(new ScriptBatcher.Item(keys, args)));
        } catch (IdempotencyStoreException e) {
            if (e.getCause() instanceof TimeoutException) {
                batcher.expireIfStuck(); // the call this item queued behind may never be answered
            }
            throw e;
        }
    }

    /** Runs {@code script} on {@code keys} (the key's Redis keys), its reply read as the script's output type. */
    private <T> T run(String operation, String key, Scripts.Script script, byte[][] keys, byte[]... args) {
        ScriptConnection c = connection.get(operation, key);
        try {
            return connection.await(operation, key, c.<T>evalsha(script.sha(), script.output(), keys, args));
        } catch (IdempotencyStoreException e) {
            if (!(e.getCause() instanceof RedisNoScriptException)) {
                throw e;
            }
        }
        // The server does not know the script (first use, a restart, SCRIPT FLUSH): load it and run it again. A
        // NOSCRIPT reply means the script did not run, so running it now is its only run. On a Cluster the script is
        // loaded on the master that answered, the one owning the keys' slot.
        connection.await(operation, key, c.scriptLoad(keys[0], script.source()));
        return connection.await(operation, key, c.<T>evalsha(script.sha(), script.output(), keys, args));
    }

    private ScriptBatcher batcher(Scripts.Script script) {
        return new ScriptBatcher(script, connection::ifOpen, arguments::offset, timeout.toMillis());
    }

    static String redactText(String uri) {
        return uri.replaceAll("(://[^:@/]*:)[^@/]*@", "$1***@").replaceAll("^(redis[a-z-]*://)([^:@/]+)@", "$1***@");
    }
}
