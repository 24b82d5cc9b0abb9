package dev.idem.store.redis;

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
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
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
 * The redis store configured by URI while the server cannot be reached, from the start or later, through a
 * {@link LoopbackProxy} that is cut (connections accepted, never answered) and restored: under fail-open the method
 * runs unprotected (a {@code FAIL_OPEN} event), under fail-closed it does not ({@code STORE_ERROR},
 * {@link IdempotencyStoreException}); once the server is back the same engine protects calls again. While it is away
 * only the call that found it so waits (one connect timeout); the calls after it are refused without a connection
 * attempt of their own, which the proxy counts. Mistakes in the configuration stay errors at every call.
 */
class UnreachableRedisTest {
    @RegisterExtension
    static final TestRedis REDIS = new TestRedis();
    private static final int REFUSED_CALLS = 200;
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    private final IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Reports#build")
            .scope("unreachable-" + UUID.randomUUID().toString().substring(0, 8)).ttl("10m").build();

    private IdemEngine engine(String uri, OnStoreError onStoreError) {
        return IdemEngine.create(IdemSettings.custom().defaultStore("redis").property("idem.redis.uri", uri)
                .property("idem.redis.timeout", "2s").onStoreError(onStoreError).listener(events::add).build());
    }

    private static LoopbackProxy proxy() throws Exception {
        URI server = URI.create(REDIS.uri());
        return new LoopbackProxy(server.getHost(), server.getPort());
    }

    private static String through(LoopbackProxy proxy) {
        URI server = URI.create(REDIS.uri());
        return REDIS.uri().replace(server.getHost() + ":" + server.getPort(), "127.0.0.1:" + proxy.port());
    }

    private String build(IdempotentOperation<String> build, String report) throws Exception {
        return build.call(() -> {
            runs.incrementAndGet();
            return "built " + report;
        }, report);
    }

    private long count(IdempotencyEventType type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void failOpenRunsTheMethodWhileRedisIsAwayFromTheStartAndProtectsItOnceItIsBack() throws Exception {
        try (LoopbackProxy proxy = proxy()) {
            proxy.cut();
            try (IdemEngine engine = engine(through(proxy), OnStoreError.FAIL_OPEN)) {
                IdempotentOperation<String> build = engine.operation(policy, String.class);
                assertEquals("built a", build(build, "a"));
                assertEquals("built a", build(build, "a"), "unprotected: a duplicate runs too");
                assertEquals(2, runs.get());
                assertEquals(2, count(IdempotencyEventType.FAIL_OPEN));

                proxy.restore();
                while (count(IdempotencyEventType.EXECUTED) == 0) { // the store comes in the background
                    assertEquals("built b", build(build, "b"));
                    Thread.sleep(20);
                }
                int ran = runs.get();
                assertEquals("built b", build(build, "b"));
                assertEquals(ran, runs.get(), "protected again: the duplicate was replayed");
            }
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void failClosedRefusesFastWithoutConnectingWhileAwayAndServesOnceBack() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try (LoopbackProxy proxy = proxy()) {
            proxy.cut();
            try (IdemEngine engine = engine(through(proxy), OnStoreError.FAIL_CLOSED)) {
                IdempotentOperation<String> build = engine.operation(policy, String.class);
                assertThrows(IdempotencyStoreException.class, () -> build(build, "first"));
                assertRefusedWithoutConnecting(proxy, build, callers);

                proxy.restore();
                awaitServed(build, "a");
                assertEquals("built a", build(build, "a"));
                assertEquals(1, runs.get(), "protected again: the duplicate was replayed");

                proxy.cut(); // away again, after the store connected
                assertThrows(IdempotencyStoreException.class, () -> build(build, "second"));
                assertRefusedWithoutConnecting(proxy, build, callers);

                proxy.restore();
                awaitServed(build, "b");
                assertEquals("built b", build(build, "b"));
                assertEquals(2, runs.get());
            }
        } finally {
            callers.shutdownNow();
        }
    }

    /** {@value #REFUSED_CALLS} calls from 8 threads, all refused, while at most the circuit's probe connects. */
    private void assertRefusedWithoutConnecting(LoopbackProxy proxy, IdempotentOperation<String> build,
                                                ExecutorService callers) throws Exception {
        int ran = runs.get();
        long before = proxy.connections();
        List<Future<Throwable>> calls = new ArrayList<>();
        for (int i = 0; i < REFUSED_CALLS; i++) {
            String report = "during-" + i;
            calls.add(callers.submit(() -> assertThrows(IdempotencyStoreException.class, () -> build(build, report))));
        }
        for (Future<Throwable> call : calls) {
            String why = call.get().getCause().getMessage();
            assertTrue(why.contains("claim of") && why.contains(policy.scope()), "names the operation and the"
                    + " scope: " + why);
        }
        long attempts = proxy.connections() - before;
        assertTrue(attempts <= 2, attempts + " connections reached the proxy during " + REFUSED_CALLS
                + " calls; the circuit lets one probe at a time through");
        assertEquals(ran, runs.get(), "fail-closed: no method ran");
    }

    private void awaitServed(IdempotentOperation<String> build, String report) throws Exception {
        while (true) {
            try {
                assertEquals("built " + report, build(build, report));
                return;
            } catch (IdempotencyStoreException stillAway) {
                Thread.sleep(20); // the circuit's probe has not reached the server yet
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
        String deadUri = "redis://127.0.0.1:" + dead;
        try (IdemEngine open = engine(deadUri, OnStoreError.FAIL_OPEN)) {
            IdempotentOperation<String> build = open.operation(policy, String.class);
            assertEquals("built a", build(build, "a"));
            assertEquals("built a", build(build, "a"));
            assertEquals(2, runs.get());
            assertEquals(2, count(IdempotencyEventType.FAIL_OPEN));
        }
        try (IdemEngine closed = engine(deadUri, OnStoreError.FAIL_CLOSED)) {
            IdempotentOperation<String> build = closed.operation(policy, String.class);
            for (int i = 0; i < 3; i++) {
                assertThrows(IdempotencyStoreException.class, () -> build(build, "b"));
            }
            assertEquals(2, runs.get(), "fail-closed: the method did not run");
            assertEquals(3, count(IdempotencyEventType.STORE_ERROR));
        }
    }

    @Test
    void mistakesInTheConfigurationAreErrorsAtEveryCallEvenUnderFailOpen() {
        try (IdemEngine engine = engine("http://127.0.0.1:6379", OnStoreError.FAIL_OPEN)) {
            for (int i = 0; i < 2; i++) {
                IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                        () -> engine.operation(policy, String.class));
                assertTrue(e.getMessage().contains("idem.redis.uri"), e.getMessage());
            }
        }
        assertEquals(0, count(IdempotencyEventType.FAIL_OPEN));
    }
}
