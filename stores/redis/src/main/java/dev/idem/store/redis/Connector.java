package dev.idem.store.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;

/**
 * Opens the store's {@link ScriptConnection}s with a Lettuce client, its own or one handed over, and shuts its own
 * client down at the end. One per store; its connections are the store's only contact with Redis.
 */
interface Connector {

    /**
     * Opens a connection; blocks at most about the timeout the client was configured with.
     *
     * @throws RuntimeException (Lettuce's) when no connection can be opened
     */
    ScriptConnection connect();

    /**
     * Opens a pub/sub connection for the store's wake-ups ({@link RedisWakeups}); to a Cluster, one that routes
     * each sharded subscription to the master owning its channel's slot.
     *
     * @throws RuntimeException (Lettuce's) when no connection can be opened
     */
    StatefulRedisPubSubConnection<byte[], byte[]> connectPubSub();

    /** The client the connections come from, which the wake-ups watch for a connection breaking. */
    AbstractRedisClient client();

    /** Where the connections go, for messages; never a password. */
    String where();

    /** Shuts the client down if the store created it; a client handed over is left to its owner. */
    void shutdown(Duration timeout);
}
