package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.OnStoreError;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.testsupport.LoopbackProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The jdbc store configured by URL ({@code idem.jdbc.url}) while PostgreSQL cannot be reached, from the start or
 * later: under fail-open the method runs unprotected (a {@code FAIL_OPEN} event), under fail-closed it does not (a
 * {@code STORE_ERROR} event and {@link IdempotencyStoreException}); either way, once the database is back the same
 * engine protects calls again. While it is away, only the call that found it so waits for a connection; the calls
 * after it are refused without a connection attempt of their own (the test's timeout bounds how long they take:
 * without the circuit each would wait for the pool). Mistakes in the configuration stay loud errors at every call.
 */
class UnreachableDatabaseTest extends CrossProcessSuite {
    /** Calls made while the circuit is open: each would spend a connection timeout without it. */
    private static final int REFUSED_CALLS = 200;
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    private final IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place")
            .scope("unreachable-" + UUID.randomUUID().toString().substring(0, 8)).ttl("10m").build();

    private IdemEngine engine(String jdbcUrl, OnStoreError onStoreError) {
        return IdemEngine.create(IdemSettings.custom().namespace("suite").defaultStore("jdbc")
                .property("idem.jdbc.url", jdbcUrl).property("idem.jdbc.table", table)
                .onStoreError(onStoreError).listener(events::add).build());
    }

    private String through(LoopbackProxy proxy) {
        URI server = URI.create(url.substring("jdbc:".length()));
        return url.replace(server.getHost() + ":" + server.getPort(), "127.0.0.1:" + proxy.port());
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
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void failOpenRunsTheMethodWhileTheDatabaseIsAwayFromTheStartAndProtectsItOnceItIsBack() throws Exception {
        createTables(false);
        try (LoopbackProxy proxy = new LoopbackProxy("127.0.0.1", 1)) {
            proxy.cut(); // accepted, never answered: a database that is away from the start
            try (IdemEngine engine = engine(through(proxy), OnStoreError.FAIL_OPEN)) {
                IdempotentOperation<String> place = engine.operation(policy, String.class);
                assertEquals("placed a", place(place, "a"));
                assertEquals("placed a", place(place, "a"), "unprotected: a duplicate runs too");
                assertEquals(2, runs.get());
                assertEquals(2, count(IdempotencyEventType.FAIL_OPEN), events.toString());
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void protectionResumesOnceTheDatabaseThatWasAwayFromTheStartIsBack() throws Exception {
        createTables(false);
        URI server = URI.create(url.substring("jdbc:".length()));
        try (LoopbackProxy proxy = new LoopbackProxy(server.getHost(), server.getPort())) {
            proxy.cut();
            try (IdemEngine engine = engine(through(proxy), OnStoreError.FAIL_OPEN)) {
                IdempotentOperation<String> place = engine.operation(policy, String.class);
                assertEquals("placed a", place(place, "a"));
                assertEquals(1, count(IdempotencyEventType.FAIL_OPEN));

                proxy.restore();
                // The store is created again in the background; until then each call still runs unprotected.
                while (count(IdempotencyEventType.EXECUTED) == 0) {
                    assertEquals("placed b", place(place, "b"));
                    Thread.sleep(20);
                }
                int ran = runs.get();
                assertEquals("placed b", place(place, "b"), "a duplicate is replayed: protected again");
                assertEquals(ran, runs.get(), "the duplicate did not run");
                assertTrue(count(IdempotencyEventType.REPLAYED) > 0, events.toString());
            }
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void failClosedRefusesFastWithoutConnectingWhileAwayAndServesOnceBack() throws Exception {
        createTables(false);
        URI server = URI.create(url.substring("jdbc:".length()));
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try (LoopbackProxy proxy = new LoopbackProxy(server.getHost(), server.getPort())) {
            proxy.cut();
            try (IdemEngine engine = engine(through(proxy), OnStoreError.FAIL_CLOSED)) {
                IdempotentOperation<String> place = engine.operation(policy, String.class);
                // Away from the start: the first call waits for the pool's connection timeout, the rest do not.
                assertThrows(IdempotencyStoreException.class, () -> place(place, "first"));
                assertRefusedWithoutConnecting(proxy, place, callers);

                proxy.restore();
                awaitServed(place, "a");
                assertEquals("placed a", place(place, "a"));
                assertEquals(1, runs.get(), "protected again: the duplicate was replayed");

                // Away again, after the store started.
                proxy.cut();
                assertThrows(IdempotencyStoreException.class, () -> place(place, "second"));
                assertRefusedWithoutConnecting(proxy, place, callers);

                proxy.restore();
                awaitServed(place, "b");
                assertEquals("placed b", place(place, "b"));
                assertEquals(2, runs.get());
            }
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * {@value #REFUSED_CALLS} calls from 8 threads, all refused with the method not run, while only the circuit's
     * probes (one at a time) and the pool's attempts to refill itself reach the endpoint, none of the calls.
     */
    private void assertRefusedWithoutConnecting(LoopbackProxy proxy, IdempotentOperation<String> place,
                                                ExecutorService callers) throws Exception {
        int ran = runs.get();
        long storeErrors = count(IdempotencyEventType.STORE_ERROR);
        long before = proxy.connections();
        List<Future<Throwable>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < REFUSED_CALLS; i++) {
            String order = "during-" + i;
            calls.add(callers.submit(() -> assertThrows(IdempotencyStoreException.class, () -> place(place, order))));
        }
        for (Future<Throwable> call : calls) {
            Throwable refused = call.get();
            String why = refused.getCause().getMessage();
            assertTrue(why.contains("claim of") && why.contains(policy.scope()), "names the operation and the"
                    + " scope: " + why);
        }
        // Calls that reached the database would make one attempt each. What may reach it meanwhile is the circuit's
        // probes, one at a time and each held up to the connect timeout by the silent proxy, and the pool's own
        // attempts to refill itself: a few over the burst, however slowly a loaded machine runs it.
        long attempts = proxy.connections() - before;
        assertTrue(attempts < REFUSED_CALLS / 10, attempts + " connection attempts reached the database during "
                + REFUSED_CALLS + " calls; refused calls must not connect");
        assertEquals(ran, runs.get(), "fail-closed: no method ran");
        assertEquals(storeErrors + REFUSED_CALLS, count(IdempotencyEventType.STORE_ERROR));
    }

    private void awaitServed(IdempotentOperation<String> place, String order) throws Exception {
        while (true) {
            try {
                assertEquals("placed " + order, place(place, order));
                return;
            } catch (IdempotencyStoreException stillAway) {
                Thread.sleep(20); // the circuit's probe has not reached the database yet
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aDeadPortFailsOpenOrClosedAsConfigured() throws Exception {
        int dead;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = socket.getLocalPort();
        }
        String deadUrl = "jdbc:postgresql://127.0.0.1:" + dead + "/test?user=postgres";
        try (IdemEngine open = engine(deadUrl, OnStoreError.FAIL_OPEN)) {
            IdempotentOperation<String> place = open.operation(policy, String.class);
            assertEquals("placed a", place(place, "a"));
            assertEquals("placed a", place(place, "a"));
            assertEquals(2, runs.get());
            assertEquals(2, count(IdempotencyEventType.FAIL_OPEN));
        }
        try (IdemEngine closed = engine(deadUrl, OnStoreError.FAIL_CLOSED)) {
            IdempotentOperation<String> place = closed.operation(policy, String.class);
            for (int i = 0; i < 3; i++) {
                assertThrows(IdempotencyStoreException.class, () -> place(place, "b"));
            }
            assertEquals(2, runs.get(), "fail-closed: the method did not run");
            assertEquals(3, count(IdempotencyEventType.STORE_ERROR));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void mistakesInTheConfigurationAreErrorsAtEveryCallEvenUnderFailOpen() throws Exception {
        try (IdemEngine engine = engine("jdbc:nosuchdriver://127.0.0.1/test", OnStoreError.FAIL_OPEN)) {
            for (int i = 0; i < 2; i++) {
                IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                        () -> engine.operation(policy, String.class));
                assertTrue(e.getMessage().contains("idem.jdbc.url"), e.getMessage());
            }
        }
        // The database answers, but the table is missing (createTable is off): not an outage either.
        try (IdemEngine engine = engine(url, OnStoreError.FAIL_OPEN)) {
            for (int i = 0; i < 2; i++) {
                IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                        () -> engine.operation(policy, String.class));
                assertTrue(e.getMessage().contains(table), e.getMessage());
            }
        }
        assertEquals(0, runs.get(), "nothing ran unprotected");
        assertEquals(0, count(IdempotencyEventType.FAIL_OPEN));
    }
}
