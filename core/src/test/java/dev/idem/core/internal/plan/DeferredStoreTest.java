package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.store.StoreCircuit;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stand-in for a store unreachable at creation, with its probes run by the test one at a time: an attempt that
 * fails for anything but an outage ends the probing, and its error, not "unreachable", answers every later call.
 */
class DeferredStoreTest {
    private static final String KEY = "idem:shop:orders:0123456789abcdef";

    /** The probes the circuit scheduled and did not run yet. */
    private final Deque<Runnable> probes = new ArrayDeque<>();
    private final StoreCircuit.ProbeScheduler scheduler = (probe, delay) -> probes.add(probe);
    private final AtomicInteger creations = new AtomicInteger();

    private static IdempotencyStoreUnreachableException away() {
        return new IdempotencyStoreUnreachableException("test store: cannot connect", new IOException("refused"));
    }

    private DeferredStore deferred(Supplier<IdempotencyStore> answers) {
        return new DeferredStore("test", () -> {
            creations.incrementAndGet();
            return answers.get();
        }, away(), scheduler);
    }

    private void runNextProbe() {
        assertFalse(probes.isEmpty(), "a probe is scheduled");
        probes.poll().run();
    }

    private static ClaimRequest claim() {
        return new ClaimRequest(KEY, "ab", "owner", Duration.ofSeconds(10), Duration.ofMinutes(5));
    }

    @Test
    void anAttemptThatFailsForAMistakeEndsTheProbingAndItsErrorAnswersEveryCall() {
        IdempotencyStoreException missing = new IdempotencyStoreException("test store: table idem_records missing");
        Supplier<IdempotencyStore>[] next = new Supplier[] {() -> {
            throw away();
        }};
        try (DeferredStore store = deferred(() -> next[0].get())) {
            assertThrows(IdempotencyStoreUnreachableException.class, () -> store.claim(claim()));
            runNextProbe(); // still away: probed again later
            assertEquals(1, creations.get());
            next[0] = () -> {
                throw missing;
            };
            runNextProbe();
            assertEquals(2, creations.get());
            assertTrue(probes.isEmpty(), "no probe after the mistake: " + probes.size());
            for (int i = 0; i < 3; i++) {
                assertSame(missing, assertThrows(IdempotencyStoreException.class, () -> store.claim(claim())));
                assertSame(missing, assertThrows(IdempotencyStoreException.class, () -> store.get(KEY)));
            }
            assertSame(missing, assertThrows(IdempotencyStoreException.class, store::transactionalClaims));
            assertSame(missing, DeferredStore.creationFailure(store));
            assertEquals(2, creations.get(), "never created again");
        }
    }

    @Test
    void aConfigurationErrorFoundLaterIsThrownAsItIs() {
        IdempotencyConfigurationException bad = new IdempotencyConfigurationException("idem.test.user is refused");
        try (DeferredStore store = deferred(() -> {
            throw bad;
        })) {
            runNextProbe();
            assertTrue(probes.isEmpty());
            assertSame(bad, assertThrows(IdempotencyConfigurationException.class, () -> store.claim(claim())));
            assertSame(bad, DeferredStore.creationFailure(store));
        }
    }

    @Test
    void anOutageIsProbedUntilTheStoreIsCreatedAndIsNoCreationFailure() {
        boolean[] reachable = {false};
        try (DeferredStore store = deferred(() -> {
            if (!reachable[0]) {
                throw away();
            }
            return new InMemoryIdempotencyStore(Clock.systemUTC());
        })) {
            runNextProbe();
            runNextProbe();
            assertNull(DeferredStore.creationFailure(store));
            reachable[0] = true;
            runNextProbe();
            assertTrue(probes.isEmpty());
            store.claim(claim());
            assertTrue(store.get(KEY).isPresent());
        }
    }

    @Test
    void messagesNameTheScopeNeverTheKeysHash() {
        try (DeferredStore store = deferred(() -> {
            throw away();
        })) {
            IdempotencyStoreUnreachableException e = assertThrows(IdempotencyStoreUnreachableException.class,
                    () -> store.claim(claim()));
            assertTrue(e.getMessage().contains("scope shop:orders"), e.getMessage());
            assertFalse(e.getMessage().contains("0123456789abcdef"), e.getMessage());
        }
    }

    /** A real store that counts its closes. */
    private static final class ClosingStore extends ForwardingIdempotencyStore {
        final AtomicInteger closes = new AtomicInteger();

        ClosingStore() {
            super(new InMemoryIdempotencyStore(Clock.systemUTC()));
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            super.close();
        }

        @Override
        public String toString() {
            return "the created store";
        }
    }

    @Test
    void closingClosesTheStoreCreatedInTheBackground() {
        ClosingStore created = new ClosingStore();
        DeferredStore store = deferred(() -> created);
        assertEquals("store \"test\" (unreachable so far)", store.toString());
        runNextProbe();
        assertEquals("the created store", store.toString());
        store.close();
        assertEquals(1, created.closes.get());
    }

    @Test
    void aStoreCreatedAfterTheCloseIsClosedAtOnceAndNeverUsed() {
        ClosingStore created = new ClosingStore();
        DeferredStore[] engineSide = new DeferredStore[1];
        DeferredStore store = deferred(() -> {
            engineSide[0].close(); // the engine closes while this attempt is creating the store
            return created;
        });
        engineSide[0] = store;
        runNextProbe();
        assertEquals(1, created.closes.get(), "the late store is closed");
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> store.claim(claim()));
        assertEquals("store \"test\": claim of scope shop:orders refused: the store is closed", e.getMessage());
        assertEquals(1, creations.get(), "created once, by the attempt in flight");
        store.close();
        assertEquals(1, created.closes.get(), "closed once");
    }

    @Test
    void closingBeforeAnyStoreExistsClosesNothingAndRefusesCalls() {
        try (DeferredStore store = deferred(() -> {
            throw away();
        })) {
            store.close();
            IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> store.get(KEY));
            assertTrue(e.getMessage().endsWith("refused: the store is closed"), e.getMessage());
            assertEquals(0, creations.get());
        }
    }

    @Test
    void onceCreatedEveryOperationReachesTheStore() {
        ClosingStore created = new ClosingStore();
        try (DeferredStore store = deferred(() -> created)) {
            runNextProbe();
            long token = ((ClaimOutcome.Acquired) store.claim(claim())).fencingToken();
            long stale = token + 1;
            assertFalse(store.renew(KEY, stale, Duration.ofSeconds(30)), "the store's refusal, as it answered");
            assertFalse(store.release(KEY, stale));
            assertFalse(store.complete(KEY, stale, new byte[] {7}, Duration.ofMinutes(1)));
            assertFalse(store.fail(KEY, stale, new byte[] {9}, Duration.ofMinutes(1)));
            assertTrue(store.renew(KEY, token, Duration.ofSeconds(30)));
            assertTrue(store.release(KEY, token));
            assertTrue(created.get(KEY).isEmpty(), "released through the stand-in");
            token = ((ClaimOutcome.Acquired) store.claim(claim())).fencingToken();
            assertTrue(store.complete(KEY, token, new byte[] {7}, Duration.ofMinutes(1)));
            assertEquals(RecordState.COMPLETED, store.get(KEY).orElseThrow().state());
            store.delete(KEY);
            assertTrue(created.get(KEY).isEmpty(), "deleted through the stand-in");
            token = ((ClaimOutcome.Acquired) store.claim(claim())).fencingToken();
            assertTrue(store.fail(KEY, token, new byte[] {9}, Duration.ofMinutes(1)));
            assertEquals(RecordState.FAILED, created.get(KEY).orElseThrow().state());
            assertEquals(created.watch(KEY).isPresent(), store.watch(KEY).isPresent());
        }
        assertEquals(1, created.closes.get());
    }
}
