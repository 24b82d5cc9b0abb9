package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.Idempotent;
import dev.idem.StoreTransaction;
import dev.idem.OnStoreError;
import dev.idem.core.ConfigurationCheck;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store whose server is unreachable when the engine creates it (its provider throws
 * {@link IdempotencyStoreUnreachableException}): the method is planned all the same; under fail-open each call runs
 * unprotected ({@code FAIL_OPEN}), under fail-closed each is refused ({@code STORE_ERROR}) and the method does not
 * run; the provider is asked again in the background, one attempt at a time, and once it returns a store calls are
 * protected again. A provider that reports a mistake in the configuration is an error at every call, never a run
 * without protection.
 */
class UnreachableStoreTest {
    /** The provider's answers: shared with the instance the registry creates by class name. */
    static volatile boolean reachable;
    static volatile boolean misconfigured;
    /** Thrown by every attempt once set: the server answered, but the store cannot serve. */
    static volatile RuntimeException mistakeFoundLater;
    static final AtomicInteger creations = new AtomicInteger();

    /** A store that is away until {@link #reachable}, then an in-memory one. */
    public static final class Provider implements IdempotencyStoreProvider {
        @Override
        public String name() {
            return "flaky";
        }

        @Override
        public IdempotencyStore create(Map<String, String> properties, Clock clock) {
            creations.incrementAndGet();
            if (misconfigured) {
                throw new IdempotencyConfigurationException("idem.flaky.url = \"nowhere\" is not a URL");
            }
            RuntimeException later = mistakeFoundLater;
            if (later != null && creations.get() > 1) { // the first attempt is an outage, a later one not
                throw later;
            }
            if (!reachable) {
                throw new IdempotencyStoreUnreachableException("flaky store: cannot connect to nowhere:1",
                        new IOException("connection refused"));
            }
            return new InMemoryIdempotencyStore(clock);
        }
    }

    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    private final IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place").scope("orders")
            .build();

    @BeforeEach
    void away() {
        reachable = false;
        misconfigured = false;
        mistakeFoundLater = null;
        creations.set(0);
    }

    private IdemEngine engine(OnStoreError onStoreError) {
        return IdemEngine.create(IdemSettings.custom().defaultStore(Provider.class.getName())
                .onStoreError(onStoreError).listener(events::add).build());
    }

    private String place(IdempotentOperation<String> place, String order) throws Exception {
        return place.call(() -> {
            runs.incrementAndGet();
            return "placed " + order;
        }, order);
    }

    private long count(IdempotencyEventType type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void failOpenRunsUnprotectedWhileAwayAndIsProtectedOnceTheStoreCanBeCreated() throws Exception {
        try (IdemEngine engine = engine(OnStoreError.FAIL_OPEN)) {
            IdempotentOperation<String> place = engine.operation(policy, String.class);
            assertEquals("placed a", place(place, "a"));
            assertEquals("placed a", place(place, "a"));
            assertEquals(2, runs.get(), "unprotected: the duplicate ran too");
            assertEquals(2, count(IdempotencyEventType.FAIL_OPEN));

            reachable = true;
            while (count(IdempotencyEventType.EXECUTED) == 0) { // the background attempt has not come yet
                place(place, "b");
                Thread.sleep(10);
            }
            int ran = runs.get();
            assertEquals("placed b", place(place, "b"));
            assertEquals(ran, runs.get(), "protected: the duplicate was replayed");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void failClosedRefusesWithoutRunningWhileAwayAndServesOnceTheStoreCanBeCreated() throws Exception {
        try (IdemEngine engine = engine(OnStoreError.FAIL_CLOSED)) {
            IdempotentOperation<String> place = engine.operation(policy, String.class);
            for (int i = 0; i < 3; i++) {
                IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> place(place, "a"));
                assertInstanceOf(IdempotencyStoreUnreachableException.class, e.getCause());
            }
            assertEquals(0, runs.get());
            assertEquals(3, count(IdempotencyEventType.STORE_ERROR));
            assertTrue(creations.get() <= 2, "one attempt at start, at most one probe since: " + creations.get());

            reachable = true;
            while (true) {
                try {
                    assertEquals("placed a", place(place, "a"));
                    break;
                } catch (IdempotencyStoreException stillAway) {
                    Thread.sleep(10);
                }
            }
            assertEquals("placed a", place(place, "a"));
            assertEquals(1, runs.get(), "ran once, then replayed");
        }
    }

    @Test
    void aMistakeInTheStoresConfigurationIsAnErrorAtEveryCallEvenUnderFailOpen() {
        misconfigured = true;
        try (IdemEngine engine = engine(OnStoreError.FAIL_OPEN)) {
            for (int i = 0; i < 2; i++) {
                IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                        () -> engine.operation(policy, String.class));
                assertTrue(e.getMessage().contains("idem.flaky.url"), e.getMessage());
            }
            assertThrows(IdempotencyConfigurationException.class, engine::requireDefaultStore);
        }
        assertEquals(0, count(IdempotencyEventType.FAIL_OPEN));
    }

    /** Calls {@code place} until it fails with {@code expected}'s type and message; fail-open runs meanwhile. */
    private <E extends Exception> E awaitFailure(IdempotentOperation<String> place, Class<E> expected,
                                                 String message) throws Exception {
        while (true) {
            try {
                place(place, "a");
            } catch (Exception e) {
                if (expected.isInstance(e) && e.getMessage().equals(message)) {
                    return expected.cast(e);
                }
                if (!(e instanceof IdempotencyStoreException)) {
                    throw e;
                }
            }
            Thread.sleep(5); // the background attempt has not come yet; bounded by the test's timeout
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStoreThatAnswersButCannotServeEndsTheProbingAndFailsEveryCallEvenUnderFailOpen() throws Exception {
        mistakeFoundLater = new IdempotencyStoreException("flaky store: table idem_records is missing");
        try (IdemEngine engine = engine(OnStoreError.FAIL_OPEN)) {
            IdempotentOperation<String> place = engine.operation(policy, String.class);
            awaitFailure(place, IdempotencyStoreException.class, mistakeFoundLater.getMessage());
            int ran = runs.get();
            int attempts = creations.get();
            long failOpens = count(IdempotencyEventType.FAIL_OPEN);
            reachable = true; // a probe that still ran would now create the store
            for (int i = 0; i < 3; i++) {
                IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> place(place, "a"));
                assertEquals(mistakeFoundLater.getMessage(), e.getMessage(), "the error as it is, not unreachable");
            }
            assertEquals(ran, runs.get(), "not run unprotected over a mistake");
            assertEquals(failOpens, count(IdempotencyEventType.FAIL_OPEN));
            assertEquals(2, attempts, "the first attempt, then the probe that found the mistake");
            assertEquals(attempts, creations.get(), "no attempt after it");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aConfigurationErrorFoundLaterIsThrownAtEveryCallAndNeverRunsUnprotected() throws Exception {
        mistakeFoundLater = new IdempotencyConfigurationException("idem.flaky.user = \"app\" is refused");
        try (IdemEngine engine = engine(OnStoreError.FAIL_OPEN)) {
            IdempotentOperation<String> place = engine.operation(policy, String.class);
            awaitFailure(place, IdempotencyConfigurationException.class, mistakeFoundLater.getMessage());
            int ran = runs.get();
            assertThrows(IdempotencyConfigurationException.class, () -> place(place, "a"));
            assertEquals(ran, runs.get());
            assertEquals(2, creations.get());
        }
    }

    static class Ledger {
        @Idempotent(scope = "ledger", storeTransaction = StoreTransaction.REQUIRED)
        public String post(String entry) {
            return entry;
        }
    }

    @Test
    void aTransactionalMethodIsCheckedAndPlannedWhileItsStoreIsUnreachableAndFailsClosedAtItsCall() throws Throwable {
        try (IdemEngine engine = engine(OnStoreError.FAIL_CLOSED)) {
            assertEquals(List.of(), ConfigurationCheck.problems(engine, Ledger.class), "idem:check does not crash");
            IdempotentOperation<String> post = engine.operation(IdempotencyPolicy.custom().operation("Ledger#post")
                    .scope("ledger").storeTransaction(StoreTransaction.REQUIRED).build(), String.class);
            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> post.call(() -> {
                runs.incrementAndGet();
                return "posted";
            }, "e1"));
            assertInstanceOf(IdempotencyStoreUnreachableException.class, e.getCause(), e.toString());
            assertEquals(0, runs.get());
        }
    }

    @Test
    void anUnreachableDefaultStoreDoesNotStopAnApplicationFromStarting() {
        try (IdemEngine engine = engine(OnStoreError.FAIL_CLOSED)) {
            engine.requireDefaultStore(); // the launcher starts; calls fail closed until the store is back
        }
    }
}
