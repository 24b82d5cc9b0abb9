package dev.idem.store.redis;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;

import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes the Redis store known as {@code redis}. Keys: {@code idem.redis.uri} (required: {@code redis://},
 * {@code rediss://} for TLS, an ACL user and password in the URI, or {@code redis-sentinel://}),
 * {@code idem.redis.cluster} [false], true when the URI names seed nodes of a Redis Cluster
 * ({@code redis://host1:port1,host2:port2}), {@code idem.redis.timeout} [2s], the longest a command may take
 * ({@code 500ms}, {@code 2s}, {@code 1m} or ISO-8601 such as {@code PT2S}), and {@code idem.redis.prefix} [idem], the
 * prefix of every Redis key and channel of the store ({@link RedisIdempotencyStore.Builder#prefix(String)}: letters,
 * digits and {@code . _ / -} (no {@code :}), at most {@value RedisIdempotencyStore#MAX_PREFIX_LENGTH}). The engine's
 * clock is not used: time is the server's.
 */
public final class RedisStoreProvider implements IdempotencyStoreProvider {
    static final String URI = "uri";
    static final String TIMEOUT = "timeout";
    static final String CLUSTER = "cluster";
    static final String PREFIX = "prefix";
    private static final Set<String> KEYS = Set.of(URI, TIMEOUT, CLUSTER, PREFIX);
    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m)");

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public RedisStoreProvider() {
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public IdempotencyStore create(Map<String, String> properties, Clock clock) {
        for (String key : properties.keySet()) {
            if (!KEYS.contains(key)) {
                throw new IdempotencyConfigurationException("unknown configuration key idem.redis." + key
                        + "; the redis store knows idem.redis.uri, idem.redis.cluster, idem.redis.timeout and"
                        + " idem.redis.prefix");
            }
        }
        String uri = properties.get(URI);
        if (uri == null || uri.isBlank()) {
            throw new IdempotencyConfigurationException("the redis store needs idem.redis.uri, such as"
                    + " redis://localhost:6379");
        }
        RedisIdempotencyStore.Builder builder = RedisIdempotencyStore.builder(uri.trim());
        String cluster = properties.get(CLUSTER);
        if (cluster != null) {
            builder.cluster(bool(cluster));
        }
        String timeout = properties.get(TIMEOUT);
        if (timeout != null) {
            builder.timeout(duration(timeout));
        }
        String prefix = properties.get(PREFIX);
        if (prefix != null) {
            builder.prefix(prefix.trim());
        }
        return builder.build();
    }

    private static boolean bool(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (!t.equals("true") && !t.equals("false")) {
            throw new IdempotencyConfigurationException("idem.redis.cluster = \"" + text + "\" is not true or false");
        }
        return t.equals("true");
    }

    /** A duration such as {@code 500ms}, {@code 2s}, {@code 1m} or ISO-8601 {@code PT2S}. */
    static Duration duration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT_DURATION.matcher(t);
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    default -> Duration.ofMinutes(n);
                };
            }
            return Duration.parse(text.trim());
        } catch (DateTimeParseException | NumberFormatException | ArithmeticException e) {
            throw new IdempotencyConfigurationException("idem.redis.timeout = \"" + text + "\" is not a duration:"
                    + " write 500ms, 2s, 1m or PT2S", e);
        }
    }
}
