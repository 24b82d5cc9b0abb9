package dev.idem.codec.jackson;

import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.util.logging.Level;
import dev.idem.IdempotencyResultNotStoredException;
import dev.idem.Idempotent;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.Serializable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Results through the engine with this module on the class path: {@code json} is the default, plain records need no
 * marker interface, and every kind of result replays {@code equals} to the original from the store, decoded by a
 * second engine (another process, as far as the store can tell); {@code java} still serves the methods that ask.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThroughTheEngineTest {
    /** The warnings these tests provoke on purpose are asserted, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    enum Status { DRAFT, PUBLISHED }

    /** A plain record: not Serializable. */
    record Topic(String name, Status status, LocalDate day, BigDecimal price, List<String> tags) {
    }

    record Order(String id, Instant at, Optional<String> note) {
    }

    record Article(String title) implements Serializable {
    }

    static class Topic2 {
        public String name = "plain";
    }

    static class SpecialTopic2 extends Topic2 {
        public String secret = "runtime subtype";
    }

    static class Service {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "j:topics")
        List<Topic> topics(String day) {
            runs.incrementAndGet();
            return List.of(new Topic("rust", Status.PUBLISHED, LocalDate.parse(day), new BigDecimal("1.10"),
                    List.of("memory", "safety")), new Topic("go", Status.DRAFT, LocalDate.parse(day),
                    BigDecimal.ZERO, List.of()));
        }

        @Idempotent(scope = "j:order")
        Optional<Order> order(String id) {
            runs.incrementAndGet();
            return id.isEmpty() ? Optional.empty()
                    : Optional.of(new Order(id, Instant.parse("2026-11-30T10:15:30.123456789Z"), Optional.empty()));
        }

        @Idempotent(scope = "j:orders")
        CompletableFuture<Map<String, Order>> orders(String id) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(Map.of(id, new Order(id, Instant.EPOCH, Optional.of("gift"))));
        }

        @Idempotent(scope = "j:bytes")
        byte[] bytes(String id) {
            runs.incrementAndGet();
            return id.getBytes(StandardCharsets.UTF_8);
        }

        @Idempotent(scope = "j:nothing")
        Map<String, List<Topic>> nothing(String id) {
            runs.incrementAndGet();
            return id.isEmpty() ? null : Map.of();
        }

        @Idempotent(scope = "j:article", codec = "java")
        Article article(String title) {
            runs.incrementAndGet();
            return new Article(title);
        }

        @Idempotent(scope = "j:subtype")
        Topic2 subtype(String id) {
            runs.incrementAndGet();
            return new SpecialTopic2();
        }
    }

    private final IdempotencyStore store = new InMemoryIdempotencyStore();
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final IdemEngine first = engine();
    private final IdemEngine second = engine();

    private IdemEngine engine() {
        return IdemEngine.create(IdemSettings.custom().namespace("test").store("memory", store)
                .listener(events::add).build());
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
        store.close();
    }

    private static Object call(IdemEngine engine, Object target, String name, Object arg) throws Throwable {
        Method method = Arrays.stream(target.getClass().getDeclaredMethods())
                .filter(m -> m.getName().equals(name)).findFirst().orElseThrow();
        method.setAccessible(true);
        return engine.invoke(method, new Object[] {arg}, () -> {
            try {
                return method.invoke(target, arg);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    /** Runs in the first engine, replays in the second from the store, and returns both results. */
    private Object[] runThenReplay(String name, Object arg) throws Throwable {
        Service elsewhere = new Service();
        Service here = new Service();
        Object original = unwrap(call(first, here, name, arg));
        Object replayed = unwrap(call(second, elsewhere, name, arg));
        assertEquals(1, here.runs.get(), name + " ran once");
        assertEquals(0, elsewhere.runs.get(), name + " was replayed from the store, not run again");
        return new Object[] {original, replayed};
    }

    private static Object unwrap(Object result) throws Exception {
        return result instanceof CompletableFuture ? ((CompletableFuture<?>) result).get(10, TimeUnit.SECONDS) : result;
    }

    private byte[] storedBytesOf(String scope) {
        String key = events.stream().filter(e -> e.type() == IdempotencyEventType.EXECUTED
                && e.key().contains(":" + scope + ":")).findFirst().orElseThrow().key();
        return store.get(key).orElseThrow().result();
    }

    @Test
    void jsonIsTheDefaultAndPlainRecordsInGenericsReplayEqual() throws Throwable {
        Object[] results = runThenReplay("topics", "2026-11-30");

        assertEquals(results[0], results[1]);
        byte[] stored = storedBytesOf("j:topics");
        assertArrayEquals(new byte[] {'I', 4, 'j', 's', 'o', 'n', 1}, Arrays.copyOf(stored, 7));
        String json = new String(stored, 7, stored.length - 7, StandardCharsets.UTF_8);
        assertTrue(json.contains("\"PUBLISHED\"") && json.contains("\"2026-11-30\"") && json.contains("1.10"), json);
    }

    @Test
    void optionalsFuturesMapsBytesAndNullsReplayEqual() throws Throwable {
        Object[] order = runThenReplay("order", "o-1");
        assertEquals(order[0], order[1]);
        Object[] none = runThenReplay("order", "");
        assertEquals(Optional.empty(), none[1]);
        Object[] orders = runThenReplay("orders", "o-2");
        assertEquals(orders[0], orders[1]);
        Object[] bytes = runThenReplay("bytes", "é-1");
        assertArrayEquals((byte[]) bytes[0], (byte[]) bytes[1]);
        Object[] empty = runThenReplay("nothing", "x");
        assertEquals(Map.of(), empty[1]);
        Object[] nothing = runThenReplay("nothing", "");
        assertEquals(null, nothing[1]);
    }

    @Test
    void aMethodMayAskForTheJavaCodec() throws Throwable {
        Object[] results = runThenReplay("article", "Ownership");

        assertEquals(results[0], results[1]);
        assertArrayEquals(new byte[] {'I', 4, 'j', 'a', 'v', 'a', 1}, Arrays.copyOf(storedBytesOf("j:article"), 7));
    }

    @Test
    void aRuntimeSubtypeTheDeclaredTypeDidNotShowIsRecordedAsNotStoredAndNeverRunAgain() throws Throwable {
        Service service = new Service();

        Object result = call(first, service, "subtype", "t-1");

        assertEquals(SpecialTopic2.class, result.getClass(), "the caller that ran it gets its result");
        assertThrows(IdempotencyResultNotStoredException.class, () -> call(second, new Service(), "subtype", "t-1"));
        assertThrows(IdempotencyResultNotStoredException.class, () -> call(first, service, "subtype", "t-1"));
        assertEquals(1, service.runs.get());
        assertTrue(events.stream().anyMatch(e -> e.type() == IdempotencyEventType.RESULT_NOT_STORED));
        log.assertLogged(Level.WARNING, "RESULT_NOT_STORED");
    }
}
