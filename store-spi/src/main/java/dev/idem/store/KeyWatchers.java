package dev.idem.store;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The watches of one process, by key: what a store that offers {@link IdempotencyStore#watch} keeps to wake its
 * waiters. {@link #watch} registers a {@link KeyWatch}; {@link #signal} wakes every watch of a key; {@link #signalAll}
 * every watch, for a store that may have missed signals. Thread-safe; a watch is registered when {@code watch}
 * returns, and a {@code signal} that starts after that reaches it.
 *
 * <p>A store whose backend needs a subscription per key (Redis pub/sub) is told when a key loses its last watch,
 * so it can stop listening; such a store subscribes after {@code watch} returns and before it hands the watch out.
 */
public final class KeyWatchers {
    private final ConcurrentHashMap<String, Set<Watch>> watches = new ConcurrentHashMap<>();
    private final Consumer<String> unwatched;

    /** Watches for a store that needs no word when a key is no longer watched. */
    public KeyWatchers() {
        this(key -> {
        });
    }

    /**
     * @param unwatched called with a key when its last watch closes, inside the step that removes it: a later
     *                  {@code watch} of that key happens after it returns. It must not block.
     */
    public KeyWatchers(Consumer<String> unwatched) {
        this.unwatched = Objects.requireNonNull(unwatched, "unwatched");
    }

    /**
     * Registers a watch of {@code key}.
     *
     * @param key the key, as the store names it
     * @return the watch, registered
     */
    public KeyWatch watch(String key) {
        Watch watch = new Watch(key);
        watches.compute(key, (k, set) -> {
            Set<Watch> held = set != null ? set : ConcurrentHashMap.newKeySet();
            held.add(watch);
            return held;
        });
        return watch;
    }

    /**
     * Wakes every watch of {@code key} registered before this call.
     *
     * @param key the key, as the store names it
     */
    public void signal(String key) {
        Set<Watch> set = watches.get(key);
        if (set != null) {
            set.forEach(Watch::signal);
        }
    }

    /** Wakes every watch: the store cannot tell which signals it missed (its connection broke). */
    public void signalAll() {
        watches.values().forEach(set -> set.forEach(Watch::signal));
    }

    /**
     * {@return whether {@code key} has a watch open now}
     *
     * @param key the store's key
     */
    public boolean isWatched(String key) {
        return watches.containsKey(key);
    }

    /** {@return the keys with a watch open now} */
    public Set<String> watchedKeys() {
        return Set.copyOf(watches.keySet());
    }

    private void unregister(Watch watch) {
        watches.computeIfPresent(watch.key, (k, set) -> {
            if (!set.remove(watch) || !set.isEmpty()) {
                return set;
            }
            unwatched.accept(k);
            return null;
        });
    }

    /** One watch: a flag a signal sets and an await consumes. */
    private final class Watch implements KeyWatch {
        private final String key;
        private boolean signalled;
        private boolean closed;

        Watch(String key) {
            this.key = key;
        }

        synchronized void signal() {
            signalled = true;
            notifyAll();
        }

        @Override
        public synchronized boolean await(long timeout, TimeUnit unit) throws InterruptedException {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            while (!signalled && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            boolean woken = signalled && !closed;
            signalled = false;
            return woken;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                notifyAll();
            }
            unregister(this);
        }

        @Override
        public String toString() {
            return "watch of " + key;
        }
    }
}
