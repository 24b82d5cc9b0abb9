package dev.idem.store.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Connections to a Redis Cluster. Lettuce routes {@code EVALSHA} by its first key to the master owning that key's
 * slot (all keys of one call share the slot: see {@link RedisKeyNames}); {@code SCRIPT LOAD} and
 * {@code TIME}, which name no key, are sent explicitly to the master owning the slot of the key they are for, through
 * that node's own connection. So a script is loaded on exactly the node that answered NOSCRIPT, and a key's time is
 * the clock its scripts read.
 */
final class ClusterConnector implements Connector {
    private final RedisClusterClient client;
    private final boolean ownsClient;
    private final String where;
    private final Duration timeout;

    /**
     * @param client     the client, created with the seed URIs
     * @param where      the seeds, for messages
     * @param ownsClient whether {@link #shutdown} shuts the client down
     * @param timeout    the command timeout of each connection
     */
    ClusterConnector(RedisClusterClient client, String where, boolean ownsClient, Duration timeout) {
        this.client = client;
        this.where = where;
        this.ownsClient = ownsClient;
        this.timeout = timeout;
    }

    /**
     * A connector with its own client to the Cluster that {@code seeds} belong to (Lettuce learns the other nodes from
     * them), configured like a standalone one ({@link StandaloneConnector#atMostOnce}); a MOVED or ASK answer, which
     * means the command did not run, is followed and refreshes the client's view of the slots.
     */
    static ClusterConnector owning(List<RedisURI> seeds, Duration timeout) {
        seeds.forEach(seed -> seed.setTimeout(timeout));
        RedisClusterClient client = RedisClusterClient.create(seeds);
        ClusterClientOptions.Builder options = ClusterClientOptions.builder()
                // Every adaptive refresh trigger (MOVED, ASK, reconnects, an unknown node or uncovered slot) is on by
                // default in Lettuce 7, whose builder methods to switch them on are deprecated.
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().build());
        StandaloneConnector.atMostOnce(options, timeout);
        client.setOptions(options.build());
        String where = seeds.stream().map(RedisURI::toString).collect(Collectors.joining(", ", "the Cluster of ", ""));
        return new ClusterConnector(client, where, true, timeout);
    }

    /**
     * Connects to the Cluster and at once to each master. Lettuce opens a master's connection lazily, on the first
     * command for one of its slots, and with commands rejected while disconnected (as the store configures its own
     * clients) that first command fails while the connection is still being opened; so every master's is opened here,
     * and a master that joins later costs one failed call, after which the store opens a new Cluster connection.
     */
    @Override
    public ScriptConnection connect() {
        StatefulRedisClusterConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
        try {
            c.setTimeout(timeout);
            openEveryMaster(c.getPartitions(), c::getConnection);
        } catch (RuntimeException e) {
            c.closeAsync();
            throw e;
        }
        return new Cluster(c);
    }

    /**
     * A pub/sub connection to the Cluster that routes each sharded subscription to the master owning its channel's
     * slot. Every master's connection is opened here, for the reason {@link #connect} gives.
     */
    @Override
    public StatefulRedisPubSubConnection<byte[], byte[]> connectPubSub() {
        StatefulRedisClusterPubSubConnection<byte[], byte[]> c = client.connectPubSub(ByteArrayCodec.INSTANCE);
        try {
            c.setTimeout(timeout);
            openEveryMaster(c.getPartitions(), c::getConnection);
        } catch (RuntimeException e) {
            c.closeAsync();
            throw e;
        }
        return c;
    }

    /** Opens the connection of every master in {@code partitions} through {@code open} (host, port). */
    private static void openEveryMaster(Iterable<RedisClusterNode> partitions, BiConsumer<String, Integer> open) {
        for (RedisClusterNode node : partitions) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                // By host and port: the connection the routing of keyed commands uses (not the one by node id).
                open.accept(node.getUri().getHost(), node.getUri().getPort());
            }
        }
    }

    @Override
    public RedisClusterClient client() {
        return client;
    }

    @Override
    public String where() {
        return where;
    }

    @Override
    public void shutdown(Duration timeout) {
        if (ownsClient) {
            client.shutdown(Duration.ZERO, timeout);
        }
    }

    /** One Cluster connection: Lettuce's routing connection and, through it, a connection per master. */
    record Cluster(StatefulRedisClusterConnection<byte[], byte[]> connection) implements ScriptConnection {
        @Override
        public <T> CompletableFuture<T> evalsha(String sha, ScriptOutputType output, byte[][] keys, byte[][] args) {
            return connection.async().<T>evalsha(sha, output, keys, args).toCompletableFuture();
        }

        @Override
        public CompletableFuture<String> scriptLoad(byte[] key, String source) {
            return onMasterOf(key, node -> node.async().scriptLoad(source).toCompletableFuture());
        }

        @Override
        public CompletableFuture<List<byte[]>> time(byte[] key) {
            return onMasterOf(key, node -> node.async().time().toCompletableFuture());
        }

        private <T> CompletableFuture<T> onMasterOf(byte[] key,
                Function<StatefulRedisConnection<byte[], byte[]>, CompletableFuture<T>> command) {
            int slot = SlotHash.getSlot(key);
            RedisClusterNode master = connection.getPartitions().getPartitionBySlot(slot);
            if (master == null) {
                return CompletableFuture.failedFuture(new RedisException("no master serves slot " + slot
                        + " in the topology this connection knows"));
            }
            return connection.getConnectionAsync(master.getUri().getHost(), master.getUri().getPort())
                    .thenCompose(command);
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
