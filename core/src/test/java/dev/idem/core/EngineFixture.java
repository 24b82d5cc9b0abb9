package dev.idem.core;

import dev.idem.core.internal.call.LeaseHeartbeat;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.MutableClock;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An engine on a clock the test moves, a store the test can inspect, events the test can read and lease beats
 * the test triggers: nothing in the engine tests waits on wall-clock time for expiry or leases.
 */
final class EngineFixture implements AutoCloseable {
    final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
    final IdempotencyStore store;
    final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    final ManualHeartbeat heartbeat = new ManualHeartbeat();
    final IdemEngine engine;

    EngineFixture() {
        this(b -> {
        });
    }

    EngineFixture(Consumer<IdemSettings.Builder> customise) {
        this(null, customise);
    }

    EngineFixture(IdempotencyStore sharedStore, Consumer<IdemSettings.Builder> customise) {
        this.store = sharedStore != null ? sharedStore : new InMemoryIdempotencyStore(clock);
        IdemSettings.Builder b = IdemSettings.custom()
                .namespace("test")
                .clock(clock)
                .store("memory", store)
                .listener(events::add)
                .completionRetry(2, Duration.ZERO)
                .heartbeatScheduler(heartbeat);
        customise.accept(b);
        this.engine = IdemEngine.create(b.build());
    }

    /**
     * Calls {@code target.name(args)} as a front-end does: through the method's handle
     * ({@link IdemEngine#advise}), which this engine answers once per method.
     */
    Object call(Object target, String name, Object... args) throws Throwable {
        Method method = find(target.getClass(), name);
        return engine.advise(method).call(args, () -> {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    /** Calls {@code target.name(args)} through {@link IdemEngine#invoke} alone. */
    Object invoke(Object target, String name, Object... args) throws Throwable {
        Method method = find(target.getClass(), name);
        return engine.invoke(method, args, () -> {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    static Method find(Class<?> type, String name) {
        for (Method m : type.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                m.setAccessible(true);
                return m;
            }
        }
        throw new IllegalArgumentException("no method " + name + " on " + type);
    }

    long count(IdempotencyEventType type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    IdempotencyEvent last(IdempotencyEventType type) {
        return events.stream().filter(e -> e.type() == type).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no " + type + " event in " + events));
    }

    @Override
    public void close() {
        engine.close();
    }

    /** A heartbeat sweep that runs only when the test says so. */
    static final class ManualHeartbeat implements LeaseHeartbeat.Scheduler {
        private final List<Runnable> sweeps = new CopyOnWriteArrayList<>();

        @Override
        public Runnable schedule(Runnable sweep, Duration period) {
            sweeps.add(sweep);
            return () -> sweeps.remove(sweep);
        }

        void beatAll() {
            sweeps.forEach(Runnable::run);
        }
    }
}
