package dev.idem.store.redis;

import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An open connection of the store, to a standalone server (or the master a Sentinel names) or to a Cluster, seen
 * through the only commands the store sends. Every command names the Redis key whose slot decides where it runs: on a
 * Cluster that is the node owning the slot; on a standalone server there is one place anyway.
 *
 * <p>Implementations never retry: a command in flight when the connection breaks fails, and the store drops the
 * connection ({@link #closeAsync()}) and opens another through its {@link Connector}.
 */
interface ScriptConnection {

    /**
     * {@code EVALSHA sha} with {@code keys} and {@code args}, run on the node owning the slot of {@code keys[0]}
     * (every key of one call shares that slot); its reply read as {@code output} ({@link ScriptOutputType#MULTI}: a
     * {@code List<Object>}, {@link ScriptOutputType#INTEGER}: a {@code Long}).
     */
    <T> CompletableFuture<T> evalsha(String sha, ScriptOutputType output, byte[][] keys, byte[][] args);

    /** {@code SCRIPT LOAD source} on the node owning the slot of {@code key}: the node that just answered NOSCRIPT. */
    CompletableFuture<String> scriptLoad(byte[] key, String source);

    /** {@code TIME} of the node owning the slot of {@code key}: the clock that key's scripts read. */
    CompletableFuture<List<byte[]>> time(byte[] key);

    /** False once the connection is known to be closed. */
    boolean isOpen();

    /** Closes without waiting, after a failure. */
    void closeAsync();

    /** Closes, waiting for it. */
    void close();
}
