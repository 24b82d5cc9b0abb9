package dev.idem.core;

import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.core.internal.call.EvictionTally;
import dev.idem.core.internal.InMemoryStoreProvider;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 10: the in-memory store is bounded; a record the bound forces out while it still counts is
 * reported (EVICTED, a rate-limited warning); an in-progress record is never evicted; records inside the bound are
 * unaffected. On a clock the test moves. The flood of two million keys in a small heap is {@link InMemoryFloodTest}.
 */
class InMemoryBoundTest {
    /** The warnings these tests provoke on purpose are asserted, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration HOUR = Duration.ofHours(1);

    private final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
    private final List<IdempotencyEvent> evicted = new CopyOnWriteArrayList<>();

    private InMemoryIdempotencyStore store(long maximumSize, long maximumBytes) {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, maximumSize, maximumBytes);
        store.addEvictionListener(evicted::add);
        return store;
    }

    private InMemoryIdempotencyStore store(long maximumSize) {
        return store(maximumSize, Long.MAX_VALUE);
    }

    static String key(int i) {
        return "idem:test:orders:" + String.format("%032x", i);
    }

    static long claim(IdempotencyStore store, String key, Duration window) {
        ClaimOutcome outcome = store.claim(new ClaimRequest(key, "a".repeat(64), "test", LEASE, window));
        return ((ClaimOutcome.Acquired) outcome).fencingToken();
    }

    static long claim(IdempotencyStore store, String key) {
        return claim(store, key, Duration.ZERO);
    }

    /** Claims and completes {@code key} with a 100-byte result kept for {@code ttl}. */
    static void completed(IdempotencyStore store, String key, Duration ttl) {
        assertTrue(store.complete(key, claim(store, key), new byte[100], ttl));
    }

    private List<String> evictedKeys() {
        return evicted.stream().map(IdempotencyEvent::key).toList();
    }

    private static List<String> keys(int from, int to) {
        return IntStream.range(from, to).mapToObj(InMemoryBoundTest::key).toList();
    }

    @Nested
    class TheStore {

        @Test
        void holdsEveryRecordUpToItsBoundAndReportsNothing() {
            InMemoryIdempotencyStore store = store(100);
            for (int i = 0; i < 100; i++) {
                completed(store, key(i), HOUR);
            }

            assertEquals(100, store.estimatedSize());
            for (int i = 0; i < 100; i++) {
                assertEquals(RecordState.COMPLETED, store.get(key(i)).orElseThrow().state());
            }
            assertEquals(List.of(), evicted);
        }

        @Test
        void pastItsBoundEvictsTheOldestRecordsDownToOnePercentBelowAndReportsEachWithScopeAndAge() {
            InMemoryIdempotencyStore store = store(200);
            for (int i = 0; i < 200; i++) {
                completed(store, key(i), HOUR);
                clock.advance(Duration.ofSeconds(1));
            }
            assertEquals(List.of(), evicted);

            completed(store, key(200), HOUR); // 201 records: down to 198, so the next two writes evict nothing

            assertEquals(keys(0, 3), evictedKeys());
            assertEquals(198, store.estimatedSize());
            for (int i = 3; i <= 200; i++) {
                assertTrue(store.get(key(i)).isPresent(), key(i));
            }
            IdempotencyEvent first = evicted.get(0);
            assertEquals(IdempotencyEventType.EVICTED, first.type());
            assertEquals("orders", first.operation());
            assertEquals(1, first.fencingToken());
            assertTrue(first.detail().startsWith("COMPLETED record evicted at age 3m20s ("), first.detail());
            assertTrue(first.detail().contains("idem.memory.maximumSize = 200"), first.detail());

            completed(store, key(201), HOUR);
            completed(store, key(202), HOUR);
            assertEquals(3, evicted.size());
        }

        @Test
        void evictsTheRecordNearestItsExpiryFirstHoweverNewItIs() {
            InMemoryIdempotencyStore store = store(100);
            for (int i = 0; i < 60; i++) {
                completed(store, key(i), HOUR);
                clock.advance(Duration.ofSeconds(1));
            }
            for (int i = 60; i < 100; i++) {
                completed(store, key(i), Duration.ofMinutes(5));
                clock.advance(Duration.ofSeconds(1));
            }

            completed(store, key(100), HOUR);
            completed(store, key(101), HOUR);

            assertEquals(keys(60, 62), evictedKeys());
        }

        @Test
        void neverEvictsARecordInProgressHoweverManyRecordsPassIt() {
            InMemoryIdempotencyStore store = store(10);
            Map<String, Long> running = new HashMap<>();
            for (int i = 0; i < 5; i++) {
                running.put(key(i), claim(store, key(i)));
            }

            for (int i = 5; i < 1_005; i++) {
                completed(store, key(i), HOUR);
                if (i % 100 == 0) { // the heartbeat renews the leases meanwhile
                    clock.advance(Duration.ofSeconds(10));
                    running.forEach((key, token) -> assertTrue(store.renew(key, token, LEASE), key));
                }
            }

            Set<String> evictedKeys = new HashSet<>(evictedKeys());
            assertEquals(1_000 - 5, evictedKeys.size());
            running.forEach((key, token) -> {
                assertFalse(evictedKeys.contains(key), key);
                assertEquals(RecordState.IN_PROGRESS, store.get(key).orElseThrow().state(), key);
                assertTrue(store.complete(key, token, new byte[100], HOUR), key);
            });
        }

        @Test
        void aStoreFullOfRunningExecutionsStaysOverItsBoundRatherThanEvictOne() {
            InMemoryIdempotencyStore store = store(10);
            for (int i = 0; i < 20; i++) {
                claim(store, key(i));
            }

            assertEquals(20, store.estimatedSize());
            for (int i = 0; i < 20; i++) {
                assertEquals(RecordState.IN_PROGRESS, store.get(key(i)).orElseThrow().state());
            }
            assertEquals(List.of(), evicted);
        }

        @Test
        void aRecordEvictedAfterItsWindowPassedIsNotReported() {
            InMemoryIdempotencyStore store = store(10);
            for (int i = 0; i < 5; i++) {
                assertTrue(store.complete(key(i), claim(store, key(i), Duration.ofMinutes(1)), new byte[100], HOUR));
            }
            for (int i = 5; i < 10; i++) {
                completed(store, key(i), HOUR);
            }
            clock.advance(Duration.ofMinutes(2)); // past the window of the first five, well within every ttl

            for (int i = 10; i < 15; i++) {
                completed(store, key(i), HOUR);
            }
            assertFalse(store.get(key(4)).isPresent());
            assertEquals(List.of(), evicted);

            completed(store, key(15), HOUR);
            assertEquals(List.of(key(5)), evictedKeys());
        }

        @Test
        void aRecordEvictedAfterItExpiredIsNotReported() {
            InMemoryIdempotencyStore store = store(10);
            for (int i = 0; i < 10; i++) {
                completed(store, key(i), HOUR);
            }
            // Between the shortest and the longest jitter: some records have expired, the others still count. The
            // store keeps them all until the longest, so that its expiry order is the order of completion.
            clock.advance(HOUR.plusMinutes(3));
            List<String> live = keys(0, 10).stream().filter(k -> store.get(k).isPresent()).toList();

            for (int i = 10; i < 20; i++) {
                completed(store, key(i), HOUR);
            }

            keys(0, 10).forEach(k -> assertFalse(store.get(k).isPresent(), k));
            assertEquals(live, evictedKeys());
        }

        @Test
        void aRememberedFailureIsReportedLikeAResult() {
            InMemoryIdempotencyStore store = store(1);
            assertTrue(store.fail(key(0), claim(store, key(0)), new byte[20], HOUR));

            completed(store, key(1), HOUR);

            assertEquals(List.of(key(0)), evictedKeys());
            assertTrue(evicted.get(0).detail().startsWith("FAILED record"), evicted.get(0).detail());
        }

        @Test
        void theByteBoundEvictsLargeResultsBeforeTheStoreFillsItsCount() {
            long maximumBytes = 64 * 1024;
            InMemoryIdempotencyStore store = store(1_000, maximumBytes);
            for (int i = 0; i < 50; i++) {
                assertTrue(store.complete(key(i), claim(store, key(i)), new byte[10 * 1024], HOUR));
                assertTrue(store.estimatedBytes() <= maximumBytes, store.estimatedBytes() + " bytes");
            }

            assertTrue(store.estimatedSize() >= 5 && store.estimatedSize() <= 6, store.estimatedSize() + " records");
            assertEquals(50 - store.estimatedSize(), evicted.size());
            assertTrue(evicted.get(0).detail().contains("over idem.memory.maximumBytes = 65536"),
                    evicted.get(0).detail());
        }

        @Test
        void theByteEstimateFollowsEveryWriteAndRemoval() {
            InMemoryIdempotencyStore store = store(1_000);
            Map<String, Long> running = new HashMap<>();
            for (int i = 0; i < 20; i++) {
                long token = claim(store, key(i));
                if (i < 15) {
                    store.complete(key(i), token, new byte[i * 10], i < 10 ? HOUR : Duration.ofMinutes(1));
                } else {
                    running.put(key(i), token);
                }
            }
            assertEquals(sumOfEstimates(store, 20), store.estimatedBytes());

            store.delete(key(0));
            store.release(key(15), running.get(key(15)));
            store.renew(key(16), running.get(key(16)), LEASE);
            store.fail(key(17), running.get(key(17)), new byte[7], HOUR);
            assertTrue(store.claim(new ClaimRequest(key(1), "b".repeat(64), "test", LEASE, Duration.ZERO))
                    instanceof ClaimOutcome.Existing); // key(1) completed and counts: the claim changes nothing
            assertEquals(sumOfEstimates(store, 20), store.estimatedBytes());

            clock.advance(Duration.ofMinutes(2)); // the 1-minute records are swept at the next write
            claim(store, key(100));
            assertEquals(sumOfEstimates(store, 20) + InMemoryIdempotencyStore.estimatedBytes(
                    store.get(key(100)).orElseThrow()), store.estimatedBytes());
            assertEquals(20 - 1 - 1 - 5 + 1, store.estimatedSize());
        }

        private long sumOfEstimates(IdempotencyStore store, int keys) {
            return IntStream.range(0, keys).mapToObj(i -> store.get(key(i))).filter(java.util.Optional::isPresent)
                    .mapToLong(r -> InMemoryIdempotencyStore.estimatedBytes(r.get())).sum();
        }

        @Test
        void aTallyThatWantsNoEventIsToldOfEachEvictionWithoutOneAndGetsEventsWhenItWantsThem() {
            InMemoryIdempotencyStore store = store(1);
            AtomicInteger skipped = new AtomicInteger();
            List<IdempotencyEvent> delivered = new ArrayList<>();
            boolean[] wants = {false};
            store.addEvictionListener(new EvictionTally() {
                @Override
                public boolean wantsEvent() {
                    return wants[0];
                }

                @Override
                public void skipped() {
                    skipped.incrementAndGet();
                }

                @Override
                public void onEvent(IdempotencyEvent event) {
                    delivered.add(event);
                }
            });

            completed(store, key(0), HOUR);
            completed(store, key(1), HOUR);
            completed(store, key(2), HOUR);
            assertEquals(2, skipped.get());
            assertEquals(List.of(), delivered);
            assertEquals(keys(0, 2), evictedKeys(), "the other listeners still get every event");

            wants[0] = true;
            completed(store, key(3), HOUR);
            assertEquals(2, skipped.get());
            assertEquals(List.of(key(2)), delivered.stream().map(IdempotencyEvent::key).toList());
        }

        @Test
        void aListenerRegisteredTwiceHearsOnceAndOneThatThrowsDoesNotSilenceTheOthers() {
            InMemoryIdempotencyStore store = store(1);
            List<IdempotencyEvent> second = new ArrayList<>();
            IdempotencyListener listener = second::add;
            store.addEvictionListener(e -> {
                throw new IllegalStateException("a broken listener");
            });
            store.addEvictionListener(listener);
            store.addEvictionListener(listener);

            completed(store, key(0), HOUR);
            completed(store, key(1), HOUR);
            assertEquals(1, second.size());
            assertEquals(1, evicted.size());

            store.removeEvictionListener(listener);
            completed(store, key(2), HOUR);
            assertEquals(1, second.size());
            assertEquals(2, evicted.size());
        }

        @Test
        void boundsBelowOneAreRefusedWithTheValue() {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> new InMemoryIdempotencyStore(clock, 0, 1))
                    .getMessage().contains("maximumSize must be at least 1: 0"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> new InMemoryIdempotencyStore(clock, 1, -5))
                    .getMessage().contains("maximumBytes must be at least 1: -5"));
        }
    }

    @Nested
    class TheProvider {
        private InMemoryIdempotencyStore create(Map<String, String> properties) {
            return (InMemoryIdempotencyStore) new InMemoryStoreProvider().create(properties, clock);
        }

        @Test
        void boundsTheStoreByDefault() {
            InMemoryIdempotencyStore store = create(Map.of());
            assertEquals(100_000, store.maximumSize());
            assertEquals(100_000 * 1_024, store.maximumBytes());
            assertEquals(100_000, new InMemoryIdempotencyStore().maximumSize());
        }

        @Test
        void readsBothBoundsAndScalesTheByteBoundWithTheSize() {
            assertEquals(5_000 * 1_024, create(Map.of("maximumSize", "5000")).maximumBytes());
            InMemoryIdempotencyStore store = create(Map.of("maximumSize", " 1_000_000 ", "maximumBytes", "256MB"));
            assertEquals(1_000_000, store.maximumSize());
            assertEquals(256L << 20, store.maximumBytes());
            assertEquals(3L << 30, create(Map.of("maximumBytes", "3gb")).maximumBytes());
            assertEquals(4096, create(Map.of("maximumBytes", "4KB")).maximumBytes());
            assertEquals(12345, create(Map.of("maximumBytes", "12345")).maximumBytes());
        }

        @Test
        void refusesABadValueOrAnUnknownKeyNamingThem() {
            for (String bad : List.of("0", "-1", "ten", "", "1.5")) {
                String message = assertThrows(IdempotencyConfigurationException.class,
                        () -> create(Map.of("maximumSize", bad))).getMessage();
                assertTrue(message.contains("idem.memory.maximumSize = \"" + bad + "\""), message);
            }
            for (String bad : List.of("0MB", "5XB", "MB", "99999999999GB")) {
                String message = assertThrows(IdempotencyConfigurationException.class,
                        () -> create(Map.of("maximumBytes", bad))).getMessage();
                assertTrue(message.contains("idem.memory.maximumBytes = \"" + bad + "\""), message);
            }
            String message = assertThrows(IdempotencyConfigurationException.class,
                    () -> create(Map.of("maxSize", "10"))).getMessage();
            assertTrue(message.contains("idem.memory.maxSize") && message.contains("idem.memory.maximumSize"),
                    message);
        }

        @Test
        void aBadBoundStopsTheEngineAtItsStoreNotAtAnUnprotectedCall() {
            try (IdemEngine engine = IdemEngine.create(IdemSettings.fromProperties(
                    Map.of("idem.memory.maximumSize", "lots")))) {
                String message = assertThrows(IdempotencyConfigurationException.class, engine::requireDefaultStore)
                        .getMessage();
                assertTrue(message.contains("idem.memory.maximumSize = \"lots\""), message);
            }
        }
    }

    /** A service keyed by order id, as an HTTP handler keyed by its Idempotency-Key header. */
    static class Orders {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "bound:orders")
        String place(@IdempotencyKey String orderId) {
            runs.incrementAndGet();
            return "placed " + orderId;
        }
    }

    @Nested
    class TheEngine {
        private final Orders orders = new Orders();
        private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        private final List<AutoCloseable> engines = new ArrayList<>();
        private final List<String> warnings = new CopyOnWriteArrayList<>();
        private final List<Long> evictionsBeforeLine = new CopyOnWriteArrayList<>();
        private final Logger log = Logger.getLogger("dev.idem");
        private final Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == Level.WARNING && record.getMessage().contains("in-memory store's bound")) {
                    warnings.add(record.getMessage());
                    evictionsBeforeLine.add(count(events, IdempotencyEventType.EVICTED));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };

        TheEngine() {
            log.addHandler(handler);
        }

        @AfterEach
        void close() throws Exception {
            log.removeHandler(handler);
            for (AutoCloseable engine : engines) {
                engine.close();
            }
        }

        private IdemEngine engine(IdemSettings.Builder settings, List<IdempotencyEvent> to) {
            IdemEngine engine = IdemEngine.create(settings.namespace("test").clock(clock).listener(to::add).build());
            engines.add(engine);
            return engine;
        }

        private String place(IdemEngine engine, String orderId) throws Throwable {
            Method method = EngineFixture.find(Orders.class, "place");
            return (String) engine.invoke(method, new Object[] {orderId}, () -> orders.place(orderId));
        }

        private long count(List<IdempotencyEvent> events, IdempotencyEventType type) {
            return events.stream().filter(e -> e.type() == type).count();
        }

        @Test
        void evictionsOfAStoreConfiguredByPropertiesReachTheListenersWithTheScope() throws Throwable {
            IdemEngine engine = engine(IdemSettings.custom().property("idem.memory.maximumSize", "100"), events);
            for (int i = 0; i < 150; i++) {
                place(engine, "order-" + i);
            }

            List<IdempotencyEvent> evictions = events.stream()
                    .filter(e -> e.type() == IdempotencyEventType.EVICTED).toList();
            assertEquals(50, evictions.size());
            evictions.forEach(e -> {
                assertEquals("bound:orders", e.operation());
                assertTrue(e.key().startsWith("idem:test:bound:orders:"), e.key());
            });
        }

        @Test
        void theWarningComesAtMostOnceAMinuteWithTheNumberEvictedSinceTheLastLine() throws Throwable {
            IdemEngine engine = engine(IdemSettings.custom().property("idem.memory.maximumSize", "100"), events);
            for (int i = 0; i < 150; i++) { // 50 evictions at one instant
                place(engine, "order-" + i);
            }
            assertEquals(50, count(events, IdempotencyEventType.EVICTED));
            assertEquals(1, warnings.size(), String.join("\n", warnings));
            assertTrue(warnings.get(0).startsWith("1 idempotency record that still counted was evicted by the"
                    + " in-memory store's bound (at most one warning a minute)"), warnings.get(0));
            assertTrue(warnings.get(0).contains("Raise idem.memory.maximumSize") && warnings.get(0).contains(
                    "shorten the ttl") && warnings.get(0).contains("shared store"), warnings.get(0));

            clock.advance(Duration.ofSeconds(59));
            place(engine, "order-150");
            place(engine, "order-151");
            assertEquals(52, count(events, IdempotencyEventType.EVICTED));
            assertEquals(1, warnings.size());

            clock.advance(Duration.ofSeconds(1));
            place(engine, "order-152");
            place(engine, "order-153");
            assertEquals(54, count(events, IdempotencyEventType.EVICTED));
            assertEquals(2, warnings.size(), String.join("\n", warnings));
            // Every eviction so far, the one that made the line included (its event comes after the line), less the
            // first, which the first line reported.
            long reported = evictionsBeforeLine.get(1);
            assertTrue(warnings.get(1).startsWith(reported + " idempotency records that still counted were evicted"
                    + " by the in-memory store's bound since the last such warning"), warnings.get(1));
        }

        @Test
        void anEngineHearsTheEvictionsOfARegisteredStoreUntilItCloses() throws Throwable {
            InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 10, Long.MAX_VALUE);
            IdemEngine first = engine(IdemSettings.custom().store("memory", store), events);
            for (int i = 0; i < 15; i++) {
                place(first, "order-" + i);
            }
            assertEquals(5, count(events, IdempotencyEventType.EVICTED));

            first.close();
            engines.remove(first);
            List<IdempotencyEvent> later = new CopyOnWriteArrayList<>();
            IdemEngine second = engine(IdemSettings.custom().store("memory", store), later);
            for (int i = 15; i < 20; i++) {
                place(second, "order-" + i);
            }
            assertEquals(5, count(later, IdempotencyEventType.EVICTED));
            assertEquals(5, count(events, IdempotencyEventType.EVICTED));
        }

        @Test
        void recordsInsideTheBoundReplayUnaffected() throws Throwable {
            InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1_000, Long.MAX_VALUE);
            IdemEngine first = engine(IdemSettings.custom().store("memory", store), events);
            for (int i = 0; i < 1_000; i++) {
                place(first, "order-" + i);
            }
            assertEquals(0, count(events, IdempotencyEventType.EVICTED));

            // A second engine has no local results: every replay comes from the store.
            List<IdempotencyEvent> replays = new CopyOnWriteArrayList<>();
            IdemEngine second = engine(IdemSettings.custom().store("memory", store), replays);
            for (int i = 0; i < 1_000; i++) {
                assertEquals("placed order-" + i, place(second, "order-" + i));
            }
            assertEquals(1_000, orders.runs.get());
            assertEquals(1_000, count(replays, IdempotencyEventType.REPLAYED));
            assertEquals(0, count(replays, IdempotencyEventType.EVICTED));
        }

        @Test
        void afterAFloodTheNewestRecordsInsideTheBoundStillReplay() throws Throwable {
            InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1_000, Long.MAX_VALUE);
            IdemEngine first = engine(IdemSettings.custom().store("memory", store), events);
            for (int i = 0; i < 5_000; i++) {
                place(first, "order-" + i);
                if (i % 50 == 0) {
                    clock.advance(Duration.ofSeconds(1));
                }
            }
            long held = store.estimatedSize();
            assertTrue(held >= 990 && held <= 1_000, held + " records");
            assertEquals(5_000 - held, count(events, IdempotencyEventType.EVICTED));

            List<IdempotencyEvent> replays = new CopyOnWriteArrayList<>();
            IdemEngine second = engine(IdemSettings.custom().store("memory", store), replays);
            for (long i = 5_000 - held; i < 5_000; i++) {
                place(second, "order-" + i);
            }
            assertEquals(5_000, orders.runs.get(), "a record among the newest " + held + " ran again");
            assertEquals(held, count(replays, IdempotencyEventType.REPLAYED));
        }
    }
}
