package dev.idem.core;

import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.core.internal.InMemoryStoreProvider;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.tck.MutableClock;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A flood of distinct keys through {@code @Idempotent}, as an HTTP service with a new {@code Idempotency-Key} on
 * nearly every request makes: run by {@link InMemoryFloodTest} in a JVM of its own with a small heap, so that an
 * unbounded store ends in {@code OutOfMemoryError} (a non-zero exit) instead of passing. Prints {@code key=value}
 * lines for the test to check, and checks what it can itself (a broken promise exits with status 3 and says which).
 *
 * <p>While the flood runs, a few executions are held in progress on other threads; the store must keep their
 * records however many keys pass, and they must complete normally afterwards. The clock stands still, so nothing
 * expires and every eviction is one of a record that still counted: each must be reported.
 *
 * <p>Arguments: keys, the store's maximumSize.
 */
final class MemoryFlood {
    static final int HELD = 8;
    /** Every this many keys, the used heap after a full collection is measured. */
    static final int CHECKPOINT = 200_000;
    static final long HEAP_LIMIT_MB = 40;
    /** A result of 100 characters, as the memory figures of docs/stores.md assume. */
    static final String RESULT = "r".repeat(100);

    /** The service: one method a request key at a time, one that runs until released. */
    static final class Service {
        final AtomicLong runs = new AtomicLong();
        final AtomicLong holds = new AtomicLong();
        final Set<String> heldKeys = ConcurrentHashMap.newKeySet();
        final CountDownLatch started = new CountDownLatch(HELD);
        final CountDownLatch release = new CountDownLatch(1);

        @Idempotent(scope = "flood:request")
        String handle(@IdempotencyKey String requestId) {
            runs.incrementAndGet();
            return RESULT;
        }

        @Idempotent(scope = "flood:held")
        String hold(@IdempotencyKey int n) throws InterruptedException {
            heldKeys.add(IdempotencyContext.current().orElseThrow().key());
            holds.incrementAndGet();
            started.countDown();
            release.await();
            return "held " + n;
        }
    }

    private MemoryFlood() {
    }

    public static void main(String[] args) {
        try {
            flood(args);
        } catch (Throwable t) {
            t.printStackTrace();
            check(false, "the flood ran to its end, but it threw " + t);
        }
        System.exit(0); // whatever else still runs
    }

    private static void flood(String[] args) throws Throwable {
        long start = System.nanoTime();
        int keys = Integer.parseInt(args[0]);
        long bound = Long.parseLong(args[1]);
        MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
        // The store as idem.memory.maximumSize makes it; registered on the engines so a second engine can share it.
        InMemoryIdempotencyStore store = (InMemoryIdempotencyStore) new InMemoryStoreProvider()
                .create(Map.of("maximumSize", String.valueOf(bound)), clock);
        Service service = new Service();
        Counts counts = new Counts(service);
        IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("flood").clock(clock)
                .store("memory", store).listener(counts::onEvent).build());
        Method handle = Service.class.getDeclaredMethod("handle", String.class);
        Method hold = Service.class.getDeclaredMethod("hold", int.class);

        ExecutorService holders = Executors.newFixedThreadPool(HELD);
        List<Future<Object>> held = new ArrayList<>();
        for (int i = 0; i < HELD; i++) {
            int n = i;
            held.add(holders.submit(() -> {
                try {
                    return engine.invoke(hold, new Object[] {n}, () -> service.hold(n));
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            }));
        }
        check(service.started.await(30, TimeUnit.SECONDS), "the held executions started");

        // Checked at every call, so that a broken promise ends the run at once rather than in a minutes-long
        // struggle of the collector with a full heap.
        long largest = 0;
        List<Long> usedMB = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            String requestId = "req-" + i;
            Object result = engine.invoke(handle, new Object[] {requestId}, () -> service.handle(requestId));
            check(RESULT.equals(result), "every call returns its result");
            long size = store.estimatedSize();
            check(size <= bound, "the store never holds more than its bound after a call: " + size);
            check(counts.broken == null, counts.broken);
            largest = Math.max(largest, size);
            if ((i + 1) % CHECKPOINT == 0) {
                long used = usedAfterGc() >> 20;
                usedMB.add(used);
                check(used <= HEAP_LIMIT_MB, "the used heap stays under " + HEAP_LIMIT_MB + " MB: " + used
                        + " MB after " + (i + 1) + " keys");
            }
        }
        long size = store.estimatedSize();
        print("keys", keys);
        print("runs", service.runs.get());
        print("largestSize", largest);
        print("size", size);
        print("evicted", counts.evicted.sum());
        print("evictedHeld", counts.evictedHeld.sum());
        print("leaseLost", counts.leaseLost.sum());
        print("indeterminate", counts.indeterminate.sum());
        print("usedMB", usedMB.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")));
        check(service.runs.get() == keys, "each distinct key ran once");
        check(counts.evicted.sum() == keys + HELD - size, "every eviction of a record that counted was reported");
        check(counts.evictedHeld.sum() == 0, "no record in progress was evicted");
        check(counts.leaseLost.sum() == 0 && counts.indeterminate.sum() == 0,
                "no execution lost its claim to an eviction");

        // The held executions finish normally: their records were there all along to be completed.
        service.release.countDown();
        for (Future<Object> f : held) {
            check(String.valueOf(f.get(30, TimeUnit.SECONDS)).startsWith("held "), "a held execution returned");
        }
        holders.shutdown();
        for (String key : service.heldKeys) {
            IdempotencyRecord r = store.get(key).orElse(null);
            check(r != null && r.state() == RecordState.COMPLETED, "a held execution's record completed: " + r);
        }

        // Records inside the bound replay unaffected, from the store: a fresh engine has no local results of its own.
        long inBound = size - HELD;
        Counts replays = new Counts(service);
        try (IdemEngine fresh = IdemEngine.create(IdemSettings.custom().namespace("flood").clock(clock)
                .store("memory", store).listener(replays::onEvent).build())) {
            long runsBefore = service.runs.get();
            for (long i = keys - inBound; i < keys; i++) {
                String requestId = "req-" + i;
                check(RESULT.equals(fresh.invoke(handle, new Object[] {requestId}, () -> service.handle(requestId))),
                        "a replay returns the stored result");
            }
            print("replayed", replays.replayedFromStore.sum());
            check(service.runs.get() == runsBefore, "no record inside the bound ran again");
            check(replays.replayedFromStore.sum() == inBound, "every record inside the bound replayed from the store");
            // The oldest key was evicted long ago: it runs again, as the EVICTED event and the warning said.
            fresh.invoke(handle, new Object[] {"req-0"}, () -> service.handle("req-0"));
            check(service.runs.get() == runsBefore + 1, "an evicted key runs again");
        }
        engine.close();
        print("seconds", (System.nanoTime() - start) / 1_000_000_000.0);
        print("result", "ok");
    }

    /** What the listener saw. */
    static final class Counts {
        final Service service;
        final LongAdder evicted = new LongAdder();
        final LongAdder evictedHeld = new LongAdder();
        final LongAdder leaseLost = new LongAdder();
        final LongAdder indeterminate = new LongAdder();
        final LongAdder replayedFromStore = new LongAdder();
        volatile String broken;

        Counts(Service service) {
            this.service = service;
        }

        void onEvent(IdempotencyEvent e) {
            switch (e.type()) {
                case EVICTED -> {
                    evicted.increment();
                    if (service.heldKeys.contains(e.key())) {
                        evictedHeld.increment();
                        broken = "a record in progress was evicted: " + e;
                    }
                }
                case LEASE_LOST -> {
                    leaseLost.increment();
                    broken = "an execution lost its claim: " + e;
                }
                case INDETERMINATE -> {
                    indeterminate.increment();
                    broken = "an execution could not save its result: " + e;
                }
                case REPLAYED -> {
                    if (e.detail().contains("store")) {
                        replayedFromStore.increment();
                    }
                }
                default -> {
                }
            }
        }
    }

    private static void check(boolean condition, String promise) {
        if (!condition) {
            System.out.println("broken=" + promise);
            System.out.flush();
            System.exit(3);
        }
    }

    private static void print(String key, Object value) {
        System.out.println(key + "=" + value);
    }

    private static long usedAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
