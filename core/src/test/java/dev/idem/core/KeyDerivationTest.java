package dev.idem.core;

import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyKeyException;
import dev.idem.Idempotent;
import dev.idem.Normalize;
import dev.idem.WindowAlignment;
import dev.idem.store.IdempotencyRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SEMANTICS.md section 1: what counts as the same call, observed through the keys the engine stores. */
class KeyDerivationTest {
    private final EngineFixture fx = new EngineFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    record Customer(String id, String email) implements Serializable {
    }

    record Order(String id, Customer customer, int quantity) implements Serializable {
    }

    static class Orders {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "{tenant}:orders")
        int place(String tenant, Order order) {
            return runs.incrementAndGet();
        }

        @Idempotent
        int defaultScope(String a) {
            return runs.incrementAndGet();
        }

        @Idempotent(key = {"order.id", "site"})
        int byName(Order order, String site, String note) {
            return runs.incrementAndGet();
        }

        @Idempotent
        int byPath(@IdempotencyKey("customer.email") Order order) {
            return runs.incrementAndGet();
        }

        @Idempotent
        int normalised(@IdempotencyKey(normalize = {Normalize.TRIM, Normalize.COLLAPSE_WHITESPACE,
                Normalize.LOWER_CASE}) String prompt) {
            return runs.incrementAndGet();
        }

        @Idempotent(version = "2")
        int versioned(String a) {
            return runs.incrementAndGet();
        }

        @Idempotent(window = "1d", windowAlignment = WindowAlignment.FIXED, zone = "Asia/Tokyo", ttl = "2d")
        int daily(String topic) {
            return runs.incrementAndGet();
        }

        @Idempotent
        int anything(Object value) {
            return runs.incrementAndGet();
        }
    }

    private final Orders orders = new Orders();

    private String lastKey() {
        return fx.last(IdempotencyEventType.EXECUTED).key();
    }

    @Test
    void scopePlaceholdersPartitionKeysByParameter() throws Throwable {
        Order order = new Order("o-1", new Customer("c-1", "ada@example.org"), 1);
        fx.call(orders, "place", "acme", order);
        String acme = lastKey();
        fx.call(orders, "place", "globex", order);
        String globex = lastKey();

        assertTrue(acme.startsWith("idem:test:acme:orders:"), acme);
        assertTrue(globex.startsWith("idem:test:globex:orders:"), globex);
        assertEquals(2, orders.runs.get());
    }

    @Test
    void aPlaceholderValueThatIsNotAPlainIdentifierIsRefused() {
        Order order = new Order("o-1", new Customer("c-1", "ada@example.org"), 1);
        IdempotencyKeyException e = assertThrows(IdempotencyKeyException.class,
                () -> fx.call(orders, "place", "acme:evil tenant", order));
        assertTrue(e.getMessage().contains(Orders.class.getName() + "#place"), e.getMessage());
        assertTrue(e.getMessage().contains("{tenant}"), e.getMessage());
        assertEquals(0, orders.runs.get());
    }

    @Test
    void anEmptyScopeDefaultsToClassAndMethodAndKeysHoldOnlyHashes() throws Throwable {
        fx.call(orders, "defaultScope", "ada@example.org");
        String key = lastKey();
        String prefix = "idem:test:" + Orders.class.getName() + "#defaultScope:";
        assertTrue(key.startsWith(prefix), key);
        // The rest is the first 128 bits of SHA-256 over the canonical encoding of the key values and the version
        // (a list of one string, then the empty version string): a hash, and nothing of the argument in clear.
        assertEquals(first128BitsHex(sha256(canonicalKeyBytes("ada@example.org", ""))),
                key.substring(prefix.length()));
        IdempotencyRecord record = fx.store.get(key).orElseThrow();
        assertTrue(record.payloadHash().matches("[0-9a-f]{64}"), record.payloadHash());
        assertFalse((record.key() + record.payloadHash() + record.owner()).contains("example.org"),
                "no raw argument value in what the store holds: " + record);
    }

    /** The canonical encoding of one String key value and the version: tag, four-byte length, UTF-8 bytes. */
    private static byte[] canonicalKeyBytes(String value, String version) {
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        byte[] v = version.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + 4 + 1 + 4 + text.length + 1 + 4 + v.length)
                .put((byte) 13).putInt(1)                        // LIST of one value
                .put((byte) 8).putInt(text.length).put(text)     // STRING
                .put((byte) 8).putInt(v.length).put(v)           // the version, a STRING
                .array();
    }

    private static byte[] sha256(byte[] bytes) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }

    private static String first128BitsHex(byte[] digest) {
        return HexFormat.of().formatHex(digest, 0, 16);
    }

    @Test
    void keyNamesSelectParametersAndPathsTheRestIsPayload() throws Throwable {
        Order order = new Order("o-1", new Customer("c-1", "a@x"), 1);
        fx.call(orders, "byName", order, "eu", "first note");
        // Same key (order id + site), same payload: replay.
        fx.call(orders, "byName", order, "eu", "first note");
        assertEquals(1, orders.runs.get());
        // Same key, other payload (the note): a conflict, not a replay.
        assertThrows(IdempotencyConflictException.class, () -> fx.call(orders, "byName", order, "eu", "other"));
        // Another site: another key.
        fx.call(orders, "byName", order, "us", "first note");
        assertEquals(2, orders.runs.get());
    }

    @Test
    void aPropertyPathKeysByAValueInsideTheArgument() throws Throwable {
        fx.call(orders, "byPath", new Order("o-1", new Customer("c-1", "a@x"), 1));
        String first = lastKey();
        assertThrows(IdempotencyConflictException.class,
                () -> fx.call(orders, "byPath", new Order("o-2", new Customer("c-9", "a@x"), 1)));
        fx.call(orders, "byPath", new Order("o-1", new Customer("c-1", "b@x"), 1));
        assertNotEquals(first, lastKey());
    }

    @Test
    void normalisedKeysMakeCosmeticVariantsOneCall() throws Throwable {
        fx.call(orders, "normalised", "Write about  Rust");
        fx.call(orders, "normalised", "  write about rust\n");
        assertEquals(1, orders.runs.get());
    }

    @Test
    void theVersionChangesEveryKey() throws Throwable {
        fx.call(orders, "versioned", "a");
        fx.call(orders, "defaultScope", "a");
        String versioned = fx.events.get(0).key();
        String unversioned = lastKey();
        assertNotEquals(versioned.substring(versioned.lastIndexOf(':')),
                unversioned.substring(unversioned.lastIndexOf(':')));
    }

    @Test
    void aFixedWindowGivesOneCallPerCalendarDayInItsZone() throws Throwable {
        fx.clock.set(Instant.parse("2026-03-01T14:00:00Z")); // 23:00 in Tokyo
        fx.call(orders, "daily", "rust");
        fx.clock.set(Instant.parse("2026-03-01T14:59:00Z")); // 23:59 in Tokyo: the same day
        fx.call(orders, "daily", "rust");
        assertEquals(1, orders.runs.get());
        String before = lastKey();

        fx.clock.set(Instant.parse("2026-03-01T15:00:00Z")); // midnight in Tokyo: a new day, a new key
        fx.call(orders, "daily", "rust");

        assertEquals(2, orders.runs.get());
        assertNotEquals(before, lastKey());
        assertEquals(0, fx.count(IdempotencyEventType.LATE_DUPLICATE), "a new bucket is a new call, not a late one");
    }

    @Test
    void anArgumentThatCannotBeEncodedAtRunTimeIsAKeyErrorNamingTheParameter() {
        IdempotencyKeyException e = assertThrows(IdempotencyKeyException.class,
                () -> fx.call(orders, "anything", Thread.currentThread()));
        assertTrue(e.getMessage().contains(Orders.class.getName() + "#anything"), e.getMessage());
        assertTrue(e.getMessage().contains("'value'"), e.getMessage());
        assertTrue(e.getMessage().contains("java.lang.Thread"), e.getMessage());
        assertTrue(e.getMessage().contains("KeyCanonicalizer"), "says how to fix it: " + e.getMessage());

        List<Object> cycle = new java.util.ArrayList<>();
        cycle.add(cycle);
        IdempotencyKeyException cyclic = assertThrows(IdempotencyKeyException.class,
                () -> fx.call(orders, "anything", cycle));
        assertTrue(cyclic.getMessage().contains("cycle"), cyclic.getMessage());
        assertEquals(0, orders.runs.get());
    }

    @Test
    void aRegisteredCanonicaliserGivesATypeItsCanonicalForm() throws Throwable {
        KeyCanonicalizer<Thread> byName = new KeyCanonicalizer<>() {
            @Override
            public Class<Thread> type() {
                return Thread.class;
            }

            @Override
            public Object canonicalize(Thread value) {
                return value.getName();
            }
        };
        try (EngineFixture withCanonicaliser = new EngineFixture(b -> b.canonicalizer(byName))) {
            Thread worker = new Thread(() -> { }, "worker-1");
            withCanonicaliser.call(orders, "anything", worker);
            withCanonicaliser.call(orders, "anything", new Thread(() -> { }, "worker-1"));
            assertEquals(1, orders.runs.get());
        }
    }

    @Test
    void theProgrammaticApiIsTheSameEngine() throws Exception {
        IdempotentOperation<String> daily = fx.engine.operation(IdempotencyPolicy.custom()
                .operation("daily-article").scope("lab:daily").window("5m").ttl("30m").build(), String.class);
        AtomicInteger runs = new AtomicInteger();

        String first = daily.call(() -> "article " + runs.incrementAndGet(), "rust", 1);
        String again = daily.call(() -> "article " + runs.incrementAndGet(), "rust", 1);
        String other = daily.call(() -> "article " + runs.incrementAndGet(), "rust", 2);

        assertEquals("article 1", first);
        assertEquals("article 1", again);
        assertEquals("article 2", other);
        assertTrue(lastKey().startsWith("idem:test:lab:daily:"));
        fx.clock.advance(Duration.ofMinutes(6));
        assertEquals("article 3", daily.call(() -> "article " + runs.incrementAndGet(), "rust", 1));
        assertEquals(1, fx.count(IdempotencyEventType.LATE_DUPLICATE));
    }
}
