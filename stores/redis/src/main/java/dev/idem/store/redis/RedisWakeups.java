package dev.idem.store.redis;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.KeyScopes;
import dev.idem.store.KeyWatch;
import dev.idem.store.KeyWatchers;
import dev.idem.store.StoreCircuit;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import jakarta.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The store's {@link dev.idem.store.IdempotencyStore#watch watches}: one pub/sub connection per store, subscribed to
 * the channels of the keys that callers of this process are waiting for, and nothing else.
 *
 * <h2>Channels</h2>
 * The channel of an idempotency key is {@code p:{b}:h}, the name of its record (under the store's prefix {@code p}):
 * the same hash tag, so the same Cluster slot. The scripts that end an execution (complete, fail, release, delete)
 * publish the new state on it with {@code SPUBLISH} ({@link Scripts}); a watch subscribes with {@code SSUBSCRIBE}.
 *
 * <h2>One subscription per key, not per waiter</h2>
 * Watches are counted per channel ({@link KeyWatchers}): the first watch of a key subscribes its channel and waits
 * for the server's confirmation (bounded by the store's timeout) before it is handed out, so a message published
 * after {@code watch} returns reaches it; later watches of the key share that subscription; the last one to close
 * unsubscribes. Subscribing and unsubscribing are sent under one lock, so the server sees them in the order the
 * counts changed.
 *
 * <h2>Connection loss</h2>
 * Messages published while the connection is down are lost, so when it breaks every watch is signalled (each waiter
 * claims again and opens a new watch) and the connection is dropped; the next watch opens a new one and subscribes
 * again. The connection does not reconnect by itself (the store's client replays nothing, see
 * {@link RedisIdempotencyStore}); a waiter never depends on it, since it also claims again after the engine's
 * {@code idem.waitRecheck}. A server that does not know sharded pub/sub (before Redis 7.0) is remembered: watches are
 * then not offered, and the engine polls.
 */
final class RedisWakeups implements AutoCloseable {
    private final AbstractRedisClient client;
    private final Supplier<StatefulRedisPubSubConnection<byte[], byte[]>> connect;
    private final Function<String, String> channels;
    private final Duration timeout;
    private final String where;
    private final KeyWatchers watchers = new KeyWatchers(this::unsubscribe);
    private final RedisConnectionStateListener disconnects = new RedisConnectionStateListener() {
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
            StatefulRedisPubSubConnection<byte[], byte[]> c = connection;
            if (c != null && handler == c) {
                drop(c);
            }
        }
    };
    /** Guards {@link #subscriptions} and orders (un)subscribe commands; never held while waiting for the server. */
    private final Object lock = new Object();
    /** Channel -> its subscription on the current connection. */
    private final Map<String, Subscription> subscriptions = new HashMap<>();
    private final Object connecting = new Object();
    @Nullable
    private volatile StatefulRedisPubSubConnection<byte[], byte[]> connection;
    /** Refuses to connect at once while the server is unreachable, and reconnects in the background. */
    private final StoreCircuit circuit = new StoreCircuit("redis store", KeyScopes::describe,
            this::reconnect);
    private volatile boolean unsupported;
    private volatile boolean closed;

    /** A channel's {@code SSUBSCRIBE}, sent on {@code connection}. */
    private record Subscription(StatefulRedisPubSubConnection<byte[], byte[]> connection, RedisFuture<Void> sent) {
    }

    /**
     * @param client   the store's client; the wake-ups listen on it for the connection breaking
     * @param connect  opens a pub/sub connection
     * @param channels the channel that the scripts publish a key's changes on: its record's name ({@code KEYS[1]} of
     *                 every script, so a script publishes without building a name; channels and keys are separate
     *                 namespaces)
     * @param timeout  the longest a connection attempt or a subscription may take
     * @param where    the server, as error messages name it
     */
    RedisWakeups(AbstractRedisClient client, Supplier<StatefulRedisPubSubConnection<byte[], byte[]>> connect,
                 Function<String, String> channels, Duration timeout, String where) {
        this.client = client;
        this.connect = connect;
        this.channels = channels;
        this.timeout = timeout;
        this.where = where;
        client.addListener(disconnects);
    }

    /**
     * A watch of {@code key}, subscribed when it is returned.
     *
     * @return empty when the server has no sharded pub/sub
     * @throws IdempotencyStoreException when the server cannot be reached or does not confirm in time
     */
    Optional<KeyWatch> watch(String key) {
        if (closed) {
            throw new IdempotencyStoreException("redis store: watch of " + KeyScopes.describe(key)
                    + " refused: the store is closed");
        }
        if (unsupported) {
            return Optional.empty();
        }
        String channel = channels.apply(key);
        KeyWatch watch = watchers.watch(channel);
        try {
            subscribe(channel, key);
            return Optional.of(watch);
        } catch (RuntimeException e) {
            watch.close();
            if (unsupported) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Makes sure {@code channel} is subscribed on the live connection, and waits for the server to confirm it. */
    private void subscribe(String channel, String key) {
        StatefulRedisPubSubConnection<byte[], byte[]> c = live(key);
        Subscription subscription;
        synchronized (lock) {
            subscription = subscriptions.get(channel);
            if (subscription == null || subscription.connection != c) {
                subscription = new Subscription(c, c.async().ssubscribe(bytes(channel)));
                subscriptions.put(channel, subscription);
            }
        }
        try {
            subscription.sent.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(key, "interrupted", e);
        } catch (TimeoutException e) {
            drop(c); // a server that does not answer: the next watch tries a new connection
            throw failure(key, "no answer to SSUBSCRIBE within " + timeout, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage())
                    .toLowerCase(java.util.Locale.ROOT).contains("unknown command")) {
                unsupported = true; // before Redis 7.0: waiters are polled
            } else if (!(cause instanceof RedisCommandExecutionException)) {
                drop(c);
            }
            forget(channel, subscription);
            throw failure(key, cause.getMessage(), cause);
        }
    }

    /** Called by {@link KeyWatchers} when the last watch of {@code channel} closes. Sends, never waits. */
    private void unsubscribe(String channel) {
        synchronized (lock) {
            Subscription subscription = subscriptions.remove(channel);
            StatefulRedisPubSubConnection<byte[], byte[]> c = connection;
            if (subscription != null && subscription.connection == c && c != null) {
                c.async().sunsubscribe(bytes(channel)); // if this fails, the connection is being dropped anyway
            }
        }
    }

    private void forget(String channel, Subscription subscription) {
        synchronized (lock) {
            subscriptions.remove(channel, subscription);
        }
    }

    private StatefulRedisPubSubConnection<byte[], byte[]> live(String key) {
        StatefulRedisPubSubConnection<byte[], byte[]> c = connection;
        if (c != null) {
            return c;
        }
        synchronized (connecting) {
            c = connection;
            if (c != null) {
                return c;
            }
            // As for the store's own connection: callers behind a failed attempt fail at once, not each a timeout,
            // and the connection is opened again in the background.
            circuit.admit("watch", key);
            try {
                c = opened();
            } catch (RuntimeException e) {
                circuit.open(e);
                throw failure(key, "cannot connect to " + where + " to subscribe: " + e.getMessage(), e);
            }
            if (closed) {
                c.closeAsync();
                throw new IdempotencyStoreException("redis store: watch refused: the store is closed");
            }
            connection = c;
            return c;
        }
    }

    /** The circuit's probe: a pub/sub connection, opened off the callers' threads and kept for the next watch. */
    private void reconnect() {
        StatefulRedisPubSubConnection<byte[], byte[]> c = opened();
        synchronized (connecting) {
            if (closed || connection != null) {
                c.closeAsync();
            } else {
                connection = c;
            }
        }
    }

    /** A new pub/sub connection that signals the watches of the channels it hears from. */
    private StatefulRedisPubSubConnection<byte[], byte[]> opened() {
        StatefulRedisPubSubConnection<byte[], byte[]> c = connect.get();
        c.setTimeout(timeout);
        c.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void smessage(byte[] channel, byte[] message) {
                    watchers.signal(new String(channel, StandardCharsets.UTF_8));
                }

                @Override
                public void sunsubscribed(byte[] channel, long count) {
                    lostByTheServer(new String(channel, StandardCharsets.UTF_8));
                }
            });
        return c;
    }

    /**
     * The server ended a subscription: this store's own unsubscribe, or the server's (its slot moved to another
     * Cluster node). In the second case the channel still has watches, which hear nothing more: they are woken to
     * claim again and subscribe anew.
     */
    private void lostByTheServer(String channel) {
        if (watchers.isWatched(channel)) {
            synchronized (lock) {
                subscriptions.remove(channel);
            }
            watchers.signal(channel);
        }
    }

    /**
     * Drops a connection that broke: its messages may be lost, so every watch is woken to claim again. A connection
     * is closed once, by whichever of its failure and its disconnect notice comes first (closing it again only makes
     * Lettuce warn).
     */
    private void drop(StatefulRedisPubSubConnection<byte[], byte[]> c) {
        boolean current;
        synchronized (connecting) {
            current = connection == c;
            if (current) {
                connection = null;
            }
        }
        synchronized (lock) {
            subscriptions.values().removeIf(s -> s.connection == c);
        }
        if (current) {
            c.closeAsync();
        }
        watchers.signalAll();
    }

    private IdempotencyStoreException failure(String key, @Nullable String why, Throwable cause) {
        return new IdempotencyStoreException("redis store: watch of " + KeyScopes.describe(key)
                + " failed on " + where + ": " + why, cause);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        StatefulRedisPubSubConnection<byte[], byte[]> c;
        synchronized (connecting) {
            if (closed) {
                return;
            }
            closed = true;
            circuit.close();
            c = connection;
            connection = null;
        }
        client.removeListener(disconnects);
        if (c != null) {
            c.close();
        }
        watchers.signalAll(); // waiters claim again and learn that the store is closed
    }
}
