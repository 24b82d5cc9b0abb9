package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
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
}
