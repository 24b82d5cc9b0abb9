package dev.idem.store.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import jakarta.annotation.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Connections to one server: a standalone Redis, or the master a Sentinel names ({@code redis-sentinel://}, which
 * Lettuce resolves at every connect, so a failover is followed by the next connection the store opens).
 */
final class StandaloneConnector implements Connector {
    private final RedisClient client;
    @Nullable
    private final RedisURI uri;
    private final boolean ownsClient;
    private final Duration timeout;

    /**
     * @param client     the client
     * @param uri        the server to connect to, or null for the client's own default URI
     * @param ownsClient whether {@link #shutdown} shuts the client down
     * @param timeout    the command timeout of each connection
     */
    StandaloneConnector(RedisClient client, @Nullable RedisURI uri, boolean ownsClient, Duration timeout) {
        this.client = client;
        this.uri = uri;
        this.ownsClient = ownsClient;
        this.timeout = timeout;
    }

    /** A connector with its own client to {@code uri}, whose timeout it sets, configured by {@link #atMostOnce}. */
    static StandaloneConnector owning(RedisURI uri, Duration timeout) {
        uri.setTimeout(timeout);
        RedisClient client = RedisClient.create();
        ClientOptions.Builder options = ClientOptions.builder();
        atMostOnce(options, timeout);
        client.setOptions(options.build());
        return new StandaloneConnector(client, uri, true, timeout);
    }

    /**
     * The options of every client the store creates, standalone or Cluster: a command in flight when its connection
     * breaks fails and is never re-sent (a replayed claim would find its own record and report it as another's),
     * commands on a broken connection are refused at once, and connecting and every command wait at most
     * {@code timeout}.
     */
    static void atMostOnce(ClientOptions.Builder options, Duration timeout) {
        options.autoReconnect(false);
        options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
        options.socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build());
        options.timeoutOptions(TimeoutOptions.enabled(timeout));
    }

    @Override
    public StatefulRedisPubSubConnection<byte[], byte[]> connectPubSub() {
        return uri != null ? client.connectPubSub(ByteArrayCodec.INSTANCE, uri)
                : client.connectPubSub(ByteArrayCodec.INSTANCE);
    }

    @Override
    public RedisClient client() {
        return client;
    }

    @Override
    public ScriptConnection connect() {
        StatefulRedisConnection<byte[], byte[]> c = uri != null ? client.connect(ByteArrayCodec.INSTANCE, uri)
                : client.connect(ByteArrayCodec.INSTANCE);
        c.setTimeout(timeout);
        return new Standalone(c);
    }

    @Override
    public String where() {
        return uri != null ? uri.toString() : "the given RedisClient"; // RedisURI.toString leaves out the password
    }

    @Override
    public void shutdown(Duration timeout) {
        if (ownsClient) {
            client.shutdown(Duration.ZERO, timeout);
        }
    }

    /** One connection to one server; the key of a command decides nothing. */
    record Standalone(StatefulRedisConnection<byte[], byte[]> connection) implements ScriptConnection {
        @Override
        public <T> CompletableFuture<T> evalsha(String sha, ScriptOutputType output, byte[][] keys, byte[][] args) {
            return connection.async().<T>evalsha(sha, output, keys, args).toCompletableFuture();
        }

        @Override
        public CompletableFuture<String> scriptLoad(byte[] key, String source) {
            return connection.async().scriptLoad(source).toCompletableFuture();
        }

        @Override
        public CompletableFuture<List<byte[]>> time(byte[] key) {
            return connection.async().time().toCompletableFuture();
        }

        @Override
        public boolean isOpen() {
            return connection.isOpen();
        }

        @Override
        public void closeAsync() {
            connection.closeAsync();
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
