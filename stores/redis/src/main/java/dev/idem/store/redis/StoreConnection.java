package dev.idem.store.redis;

import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.store.KeyScopes;
import dev.idem.store.StoreCircuit;
import io.lettuce.core.RedisCommandExecutionException;
import jakarta.annotation.Nullable;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The lifecycle of a store's one script connection: opened on first use (on the caller's thread), shared by every
 * call, dropped after a failure that was not the server's own answer, opened again behind a {@link StoreCircuit}
 * while the server is unreachable, and closed with the store, which also shuts the {@link Connector} down. It also
 * waits for the answers on it, since a failed wait is what decides that the connection is dropped, and phrases the
 * store's failures, which say whether the store was closed.
 */
final class StoreConnection {
    private final Connector connector;
    private final String where;
    private final Duration timeout;
    private final Object connecting = new Object();
    /** Refuses connecting at once while the server is unreachable, and reconnects in the background. */
    private final StoreCircuit circuit = new StoreCircuit("redis store", KeyScopes::describe, this::reconnect);
    @Nullable
    private volatile ScriptConnection connection;
    private volatile boolean closed;

    /**
     * @param connector where connections come from
     * @param timeout   the longest an answer is waited for
     */
    StoreConnection(Connector connector, Duration timeout) {
        this.connector = connector;
        this.where = connector.where();
        this.timeout = timeout;
    }

    /** {@return where the connections go, for messages} */
    String where() {
        return where;
    }

    /** The connection, opened for a call that names no key (start-up, the server's time) if need be. */
    ScriptConnection get() {
        return get("connect", "");
    }

    /**
     * The open connection, opened now if there is none.
     *
     * @param operation how the failure names the call
     * @param key       the call's key, named in a failure by its scope
     * @throws IdempotencyStoreUnreachableException when the server cannot be reached (at once while the circuit is
     *                                              open)
     * @throws IdempotencyStoreException            when the store is closed, or the server refused the connection
     */
    ScriptConnection get(String operation, String key) {
        ScriptConnection c = connection;
        if (c != null && c.isOpen() && !closed) {
            return c;
        }
        synchronized (connecting) {
            if (closed) {
                throw new IdempotencyStoreException("redis store: " + operation + " of " + KeyScopes.describe(key)
                        + " refused: the store is closed");
            }
            c = connection;
            if (c != null && c.isOpen()) {
                return c;
            }
            if (c != null) {
                c.closeAsync();
            }
            // Callers that queued behind a failed attempt fail at once instead of each waiting its own timeout, so
            // an unreachable server costs a caller at most about one timeout, however many there are.
            circuit.admit(operation, key);
            try {
                c = connector.connect();
            } catch (RuntimeException e) {
                connection = null;
                IdempotencyStoreException failed = failure(operation, key, "cannot connect to " + where + ": "
                        + e.getMessage(), e);
                if (answered(e)) { // the server refused us (a password, a database index): not an outage
                    throw failed;
                }
                circuit.open(e);
                throw new IdempotencyStoreUnreachableException(failed.getMessage(), e);
            }
            connection = c;
            return c;
        }
    }

    /** The connection if one is open, else null; never connects (the batcher calls it on Lettuce's event loop). */
    @Nullable
    ScriptConnection ifOpen() {
        ScriptConnection c = connection;
        return c != null && c.isOpen() && !closed ? c : null;
    }

    /**
     * The answer {@code future} brings within the timeout.
     *
     * @throws IdempotencyStoreException naming the operation and the key's scope when no answer came in time, the
     *                                   thread was interrupted or the call failed; a failure that was not the
     *                                   server's own answer also drops the connection
     */
    <T> T await(String operation, String key, CompletableFuture<T> future) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw failure(operation, key, "interrupted", e);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw failure(operation, key, "no answer within " + timeout, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            dropUnlessTheServerAnswered(cause);
            throw failure(operation, key, cause.getMessage(), cause);
        } catch (RuntimeException e) {
            dropUnlessTheServerAnswered(e);
            throw failure(operation, key, e.getMessage(), e);
        }
    }

    /** The store's failure of {@code operation} of {@code key}: refused when the store is closed, else failed. */
    IdempotencyStoreException failure(String operation, String key, @Nullable String why, Throwable cause) {
        if (closed) {
            return new IdempotencyStoreException("redis store: " + operation + " of " + KeyScopes.describe(key)
                    + " refused: the store is closed", cause);
        }
        return new IdempotencyStoreException("redis store: " + operation + " of " + KeyScopes.describe(key)
                + " failed on " + where + ": " + why, cause);
    }

    /**
     * Closes: every later call is refused; then {@code alsoClosing} runs (the store's other connections), the open
     * connection closes and the connector shuts down. Closing again does nothing.
     */
    void close(Runnable alsoClosing) {
        ScriptConnection open;
        synchronized (connecting) {
            if (closed) {
                return;
            }
            closed = true;
            circuit.close();
            open = connection;
            connection = null;
        }
        try {
            alsoClosing.run();
            if (open != null) {
                open.close();
            }
        } finally {
            connector.shutdown(timeout);
        }
    }

    /** The circuit's probe: a connection, opened off the callers' threads and kept for them. */
    private void reconnect() {
        ScriptConnection c = connector.connect();
        synchronized (connecting) {
            ScriptConnection current = connection;
            if (closed || current != null && current.isOpen()) {
                c.closeAsync();
            } else {
                connection = c;
            }
        }
    }

    /** Whether the server itself answered {@code failure} (an error reply), so it was reached. */
    private static boolean answered(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof RedisCommandExecutionException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Drops the connection after a failure that was not the server's own answer (an error reply such as NOSCRIPT
     * proves the connection works), so the next call opens a new one. The connection's {@code isOpen()} cannot
     * decide this: with auto-reconnect off, a connection the server dropped can stay "open" while Lettuce rejects
     * every command on it ("Currently not connected").
     */
    private void dropUnlessTheServerAnswered(Throwable failure) {
        if (failure instanceof RedisCommandExecutionException) {
            return;
        }
        ScriptConnection c = connection;
        if (c != null) {
            synchronized (connecting) {
                if (connection == c) {
                    connection = null;
                    c.closeAsync();
                }
            }
        }
    }
}
