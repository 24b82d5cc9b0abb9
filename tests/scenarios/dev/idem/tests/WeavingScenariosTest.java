package dev.idem.tests;

import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyStoreException;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.core.WeavingCheck;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same scenarios under every way of attaching Idem: these classes are woven at compile time in one module and
 * at load time in the other, and each test calls the annotated methods directly, exactly as application code does.
 */
class WeavingScenariosTest {
    private final MutableClock clock = MutableClock.startingAt("2026-03-01T08:00:00Z");
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final ArticleService service = new ArticleService();
    private IdemEngine engine;
    private IdemEngine previous;

    @BeforeEach
    void installEngine() {
        engine = IdemEngine.create(IdemSettings.custom()
                .namespace("weaving")
                .clock(clock)
                .store("memory", new InMemoryIdempotencyStore(clock))
                .store("down", new DownStore())
                .listener(events::add)
                .build());
        previous = Idem.install(engine);
    }

    @AfterEach
    void restoreEngine() {
        Idem.install(previous);
        engine.close();
    }

    private long count(IdempotencyEventType type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    @Test
    void everyAnnotatedMethodIsWoven() {
        WeavingCheck.requireWoven(ArticleService.class);
        String mode = System.getProperty("weaving.mode");
        assertTrue(mode != null && !mode.isEmpty(), "the build says which weaving this run exercises");
    }

    @Test
    void aRepeatedCallRunsOnceAndReplays() {
        ArticleService.Article first = service.generate("rust", 1);
        ArticleService.Article second = service.generate("rust", 1);

        assertEquals(first, second);
        assertEquals(1, service.runs.get());
        assertTrue(first.key().startsWith("idem:weaving:weaving:daily:"), first.key());
        assertEquals(1, count(IdempotencyEventType.EXECUTED));
    }

    @Test
    void unannotatedMethodsAreLeftAlone() {
        service.plain("rust");
        service.plain("rust");
        assertEquals(2, service.runs.get());
        assertTrue(events.isEmpty());
    }

    @Test
    void concurrentIdenticalCallsAreCoalesced() throws Exception {
        int callers = 16;
        service.during = () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (count(IdempotencyEventType.COALESCED) < callers - 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        };
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<ArticleService.Article>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return service.generate("go", 2);
                }));
            }
            start.countDown();
            for (Future<ArticleService.Article> r : results) {
                assertEquals(1, r.get(30, TimeUnit.SECONDS).edition());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, service.runs.get());
        assertEquals(callers - 1, count(IdempotencyEventType.COALESCED));
    }

    @Test
    void theSameKeyWithAnotherPayloadIsAConflict() {
        service.order("order-1", 2);
        assertThrows(IdempotencyConflictException.class, () -> service.order("order-1", 5));
        assertEquals(1, service.runs.get());
    }

    @Test
    void anUnreachableStoreFailsClosedWithoutRunningTheMethod() {
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> service.againstADownStore("rust"));
        assertTrue(e.getMessage().contains("ArticleService#againstADownStore"), e.getMessage());
        assertEquals(0, service.runs.get());
    }

    @Test
    void afterTheWindowTheCallRunsAgainAndIsReportedLate() {
        service.generate("rust", 1);
        clock.advance(Duration.ofMinutes(6));

        assertEquals(2, service.generate("rust", 1).edition());
        assertEquals(1, count(IdempotencyEventType.LATE_DUPLICATE));
    }

    @Test
    void optionalVoidStaticAndAsyncMethodsAreDeduplicated() throws Exception {
        Optional<ArticleService.Article> found = service.find("rust");
        assertEquals(found, service.find("rust"));
        assertNull(service.generateAsync("x").thenApply(a -> null).get(5, TimeUnit.SECONDS));
        assertEquals(service.generateAsync("x").get(5, TimeUnit.SECONDS), service.generateAsync("x").get());
        service.publish("rust");
        service.publish("rust");
        assertEquals(3, service.runs.get(), "find once, generateAsync once, publish once");
        assertEquals(ArticleService.staticCount("a"), ArticleService.staticCount("a"));
    }

    @Test
    void aCallerWaitsForAnotherProcessAndThenTakesOverItsExpiredLease() {
        // Another process claimed the key and died: the call takes over once the lease passes.
        ArticleService.Article probe = service.generate("dead-owner", 3);
        IdempotencyStore store = engine.settings().stores().get("memory");
        IdempotencyRecord record = store.get(probe.key()).orElseThrow();
        store.delete(probe.key());
        ClaimOutcome dead = store.claim(new ClaimRequest(probe.key(), record.payloadHash(), "crashed",
                Duration.ofSeconds(30), Duration.ZERO));
        clock.advance(Duration.ofMinutes(6)); // past the lease, and past the window so the local result is stale

        ArticleService.Article taken = service.generate("dead-owner", 3);

        assertEquals(2, taken.edition());
        assertTrue(((ClaimOutcome.Acquired) dead).fencingToken() < store.get(probe.key()).orElseThrow()
                .fencingToken());
        assertEquals(1, count(IdempotencyEventType.TAKEOVER));
    }

    /** A store whose server is gone. */
    static final class DownStore implements IdempotencyStore {
        private static IdempotencyStoreException down() {
            return new IdempotencyStoreException("connection refused");
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            throw down();
        }

        @Override
        public boolean complete(String key, long token, byte[] result, Duration ttl) {
            throw down();
        }

        @Override
        public boolean fail(String key, long token, byte[] failure, Duration failureTtl) {
            throw down();
        }

        @Override
        public boolean release(String key, long token) {
            throw down();
        }

        @Override
        public boolean renew(String key, long token, Duration lease) {
            throw down();
        }

        @Override
        public Optional<IdempotencyRecord> get(String key) {
            throw down();
        }

        @Override
        public void delete(String key) {
            throw down();
        }

        @Override
        public void close() {
            // nothing to release: it never connected
        }
    }
}
