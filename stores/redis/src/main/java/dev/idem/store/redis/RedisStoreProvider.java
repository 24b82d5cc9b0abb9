package dev.idem.store.redis;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.DurationGrammar;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Makes the Redis store known as {@code redis}. Keys: {@code idem.redis.uri} (required: {@code redis://},
 * {@code rediss://} for TLS, an ACL user and password in the URI, or {@code redis-sentinel://}),
 * {@code idem.redis.cluster} [false], true when the URI names seed nodes of a Redis Cluster
 * ({@code redis://host1:port1,host2:port2}), {@code idem.redis.timeout} [2s], the longest a command may take (a
 * duration of {@link DurationGrammar}: {@code 500ms}, {@code 2s}, {@code 1m}, ISO-8601 such as {@code PT2S}), and
 * {@code idem.redis.prefix} [idem], the prefix of every Redis key and channel of the store
 * ({@link RedisIdempotencyStore.Builder#prefix(String)}: letters, digits and {@code . _ / -} (no {@code :}), at most
 * {@value RedisIdempotencyStore#MAX_PREFIX_LENGTH}). The engine's clock is not used: time is the server's.
 */
public final class RedisStoreProvider implements IdempotencyStoreProvider {
    static final String URI = "uri";
    static final String TIMEOUT = "timeout";
    static final String CLUSTER = "cluster";
    static final String PREFIX = "prefix";
    private static final Set<String> KEYS = Set.of(URI, TIMEOUT, CLUSTER, PREFIX);

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public RedisStoreProvider() {
    }

    @Override
    public String name() {
        return "redis";
    }

    /** {@return uri, cluster, timeout and prefix: what {@link #create} accepts} */
    @Override
    public Set<String> propertyNames() {
        return KEYS;
    }

    @Override
    public IdempotencyStore create(Map<String, String> properties, Clock clock) {
        requireKnownKeys(properties);
        String uri = properties.get(URI);
        if (uri == null || uri.isBlank()) {
            throw new IdempotencyConfigurationException("the redis store needs idem.redis.uri, such as"
                    + " redis://localhost:6379");
        }
        return configure(RedisIdempotencyStore.builder(uri.trim()), properties).build();
    }

    /**
     * A builder of the redis store over the application's {@code client}, configured by the redis store's own
     * settings as {@link #create} reads them ({@code idem.redis.timeout}, {@code idem.redis.prefix},
     * {@code idem.redis.cluster}), for an application that hands the store its client instead of a URI.
     *
     * @param client     the application's client, which its owner shuts down
     * @param properties the {@code idem.redis.*} settings without the {@code idem.redis.} prefix
     * @return the configured builder
     * @throws IdempotencyConfigurationException for an unknown key, a bad value, or {@code uri}, which names a
     *                                           server of the store's own
     */
    public static RedisIdempotencyStore.Builder builder(RedisClient client, Map<String, String> properties) {
        requireNoUri(properties);
        return configure(RedisIdempotencyStore.builder(client), properties);
    }

    /**
     * {@link #builder(RedisClient, Map)} for the application's Cluster client.
     *
     * @param client     the application's Cluster client, which its owner shuts down
     * @param properties the {@code idem.redis.*} settings without the {@code idem.redis.} prefix
     * @return the configured builder
     * @throws IdempotencyConfigurationException for an unknown key, a bad value, or {@code uri}
     */
    public static RedisIdempotencyStore.Builder builder(RedisClusterClient client, Map<String, String> properties) {
        requireNoUri(properties);
        return configure(RedisIdempotencyStore.builder(client), properties);
    }

    private static void requireNoUri(Map<String, String> properties) {
        if (properties.containsKey(URI)) {
            throw new IdempotencyConfigurationException("idem.redis.uri names a server of the redis store's own, but"
                    + " the store is given the application's client; remove one of them");
        }
        requireKnownKeys(properties);
    }

    private static void requireKnownKeys(Map<String, String> properties) {
        for (String key : properties.keySet()) {
            if (!KEYS.contains(key)) {
                throw new IdempotencyConfigurationException("unknown configuration key idem.redis." + key
                        + "; the redis store knows idem.redis.uri, idem.redis.cluster, idem.redis.timeout and"
                        + " idem.redis.prefix");
            }
        }
    }

    /** Sets on {@code builder} the settings every redis store has, however it reaches its server. */
    private static RedisIdempotencyStore.Builder configure(RedisIdempotencyStore.Builder builder,
                                                           Map<String, String> properties) {
        String cluster = properties.get(CLUSTER);
        if (cluster != null) {
            builder.cluster(bool(cluster));
        }
        String timeout = properties.get(TIMEOUT);
        if (timeout != null) {
            builder.timeout(timeout(timeout));
        }
        String prefix = properties.get(PREFIX);
        if (prefix != null) {
            builder.prefix(prefix.trim());
        }
        return builder;
    }

    private static boolean bool(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (!t.equals("true") && !t.equals("false")) {
            throw new IdempotencyConfigurationException("idem.redis.cluster = \"" + text + "\" is not true or false");
        }
        return t.equals("true");
    }

    /**
     * The command timeout {@code text} denotes, in the project's one grammar ({@link DurationGrammar}).
     *
     * @throws IdempotencyConfigurationException naming the property, the text and the accepted forms
     */
    static Duration timeout(String text) {
        return DurationGrammar.parseProperty("idem.redis." + TIMEOUT, text, null);
    }
}
