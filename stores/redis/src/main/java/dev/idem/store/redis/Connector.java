package dev.idem.store.redis;

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

    /** Where the connections go, for messages; never a password. */
    String where();

    /** Shuts the client down if the store created it; a client handed over is left to its owner. */
    void shutdown(Duration timeout);
}
