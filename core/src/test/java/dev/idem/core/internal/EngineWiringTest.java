package dev.idem.core.internal;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.core.internal.call.LeaseHeartbeat;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The small parts that wire the engine: the memory provider, the default store check, instrumented types. */
class EngineWiringTest {
    private static final LeaseHeartbeat.Scheduler NO_BEATS = (sweep, period) -> () -> { };

    @Test
    void theMemoryProviderMakesAnInMemoryStoreOnTheEnginesClock() {
        InMemoryStoreProvider provider = new InMemoryStoreProvider();
        assertEquals("memory", provider.name());
        MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
        IdempotencyStore store = provider.create(Map.of(), clock);
        assertInstanceOf(InMemoryIdempotencyStore.class, store);
        store.claim(new ClaimRequest("k", "p", "o", Duration.ofSeconds(30), Duration.ZERO));
        assertEquals(clock.instant(), store.get("k").orElseThrow().startedAt(), "stamped by the given clock");
    }

    @Test
    void theMemoryProvidersBoundsTakeTheirSmallestAndLargestValues() {
        MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
        long largestGigabytes = Long.MAX_VALUE >> 30;
        InMemoryIdempotencyStore store = (InMemoryIdempotencyStore) new InMemoryStoreProvider().create(
                Map.of("maximumSize", "1", "maximumBytes", largestGigabytes + "GB"), clock);
        assertEquals(1, store.maximumSize());
        assertEquals(largestGigabytes << 30, store.maximumBytes());
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> new InMemoryStoreProvider().create(Map.of("maximumBytes", (largestGigabytes + 1) + "GB"), clock));
        assertTrue(e.getMessage().startsWith("idem.memory.maximumBytes = \"" + (largestGigabytes + 1) + "GB\""),
                e.getMessage());
        assertThrows(IdempotencyConfigurationException.class,
                () -> new InMemoryStoreProvider().create(Map.of("maximumSize", "0"), clock));
    }

    @Test
    void requireDefaultStoreNamesTheSettingAndTheKnownStores() {
        try (EngineCore core = new EngineCore(IdemSettings.fromProperties(Map.of("idem.store", "redis")), NO_BEATS,
                getClass().getClassLoader())) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    core::requireDefaultStore);
            assertTrue(e.getMessage().startsWith("idem.store = \"redis\": unknown store \"redis\"; known stores are"
                    + " [memory]"), e.getMessage());
        }
        try (EngineCore fine = new EngineCore(IdemSettings.ofDefaults(), NO_BEATS, getClass().getClassLoader())) {
            fine.requireDefaultStore();
            assertEquals(0, fine.inFlightCount());
        }
    }

    @Test
    void closingTheEngineClosesTheStoresItMadeButNotTheCallers() throws Throwable {
        InMemoryIdempotencyStore mine = new InMemoryIdempotencyStore();
        EngineCore core = new EngineCore(IdemSettings.custom().store("mine", mine).build(), NO_BEATS,
                getClass().getClassLoader());
        OperationPlan made = core.plan(IdempotencyPolicy.custom().scope("wiring:made").build(), String.class);
        OperationPlan registered = core.plan(IdempotencyPolicy.custom().scope("wiring:mine").store("mine").build(),
                String.class);
        assertEquals("ran", core.run(made, new Object[] {new Object[] {"a"}}, () -> "ran"));
        core.close();

        assertThrows(RuntimeException.class, () -> made.store.claim(new ClaimRequest("k", "p", "o",
                Duration.ofSeconds(1), Duration.ZERO)), "the memory store the engine made is closed");
        assertInstanceOf(ClaimOutcome.Acquired.class, registered.store.claim(new ClaimRequest("k", "p", "o",
                Duration.ofSeconds(1), Duration.ZERO)), "the caller's store is still open");
    }

    @Test
    void theEngineCountsTheExecutionsRunningInIt() throws Throwable {
        try (EngineCore core = new EngineCore(IdemSettings.ofDefaults(), NO_BEATS, getClass().getClassLoader())) {
            OperationPlan plan = core.plan(IdempotencyPolicy.custom().scope("wiring:count").build(), Integer.class);
            assertEquals(1, core.run(plan, new Object[] {new Object[] {"a"}}, core::inFlightCount),
                    "one execution runs while the body asks");
            assertEquals(0, core.inFlightCount());
        }
    }

    @Test
    void closingTheEngineStopsItsHeartbeat() {
        AtomicInteger cancelled = new AtomicInteger();
        AtomicInteger shutDown = new AtomicInteger();
        LeaseHeartbeat.Scheduler scheduler = new LeaseHeartbeat.Scheduler() {
            @Override
            public Runnable schedule(Runnable sweep, Duration period) {
                return cancelled::incrementAndGet;
            }

            @Override
            public void shutdown() {
                shutDown.incrementAndGet();
            }
        };
        new EngineCore(IdemSettings.ofDefaults(), scheduler, getClass().getClassLoader()).close();
        assertEquals(1, cancelled.get());
        assertEquals(1, shutDown.get());
    }
}
