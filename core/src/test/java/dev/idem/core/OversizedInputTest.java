package dev.idem.core;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyKeyException;
import dev.idem.Idempotent;
import dev.idem.store.IdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile input, oversized: a 10 MB argument is encoded into the key's hash with at most one copy of it made (the
 * encoder's buffer), measured as the bytes the calling thread allocates (ThreadMXBean), not as time; and the key
 * stays a fixed, short length, whatever the arguments, within every store's limit
 * ({@link IdempotencyStore#MAX_KEY_LENGTH}, far under Redis's and any SQL index's).
 */
class OversizedInputTest {
    private static final int TEN_MB = 10 * 1024 * 1024;
    /**
     * Less than two copies of the argument: one (the encoder's buffer, with an eighth to spare) and what a call costs
     * besides. Before the encoder sized its buffer for large values, a 10 MB argument cost three (30 MB).
     */
    private static final long ONE_COPY_BUDGET = TEN_MB * 3L / 2;

    static class Uploads {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "big:blob")
        String blob(@IdempotencyKey byte[] blob) {
            runs.incrementAndGet();
            return "stored " + blob.length;
        }

        @Idempotent(scope = "big:document")
        String document(@IdempotencyKey String requestId, String body) {
            runs.incrementAndGet();
            return "stored " + body.length();
        }

        @Idempotent(scope = "big:{tenant}")
        String tenant(String tenant, @IdempotencyKey String id) {
            return tenant;
        }
    }

    private final EngineFixture fx = new EngineFixture();
    private final Uploads uploads = new Uploads();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void aTenMegabyteByteArrayKeyIsHashedWithOneCopyAtMost() throws Throwable {
        fx.call(uploads, "blob", (Object) new byte[16]); // plan it, outside the measurement
        byte[] blob = new byte[TEN_MB];
        Arrays.fill(blob, (byte) 'x');

        long allocated = allocatedDuring(() -> fx.call(uploads, "blob", (Object) blob));

        System.out.println("a 10 MB byte[] key: the call allocated " + allocated + " bytes");
        assertTrue(allocated < ONE_COPY_BUDGET, "allocated " + allocated + " bytes for a " + TEN_MB + "-byte key");
        assertShortKeyWithoutTheArgument("big:blob", "xxxxxxxx");
        assertEquals(2, uploads.runs.get());
        assertEquals("stored " + TEN_MB, fx.call(uploads, "blob", (Object) blob.clone()), "the same bytes replay");
        assertEquals(2, uploads.runs.get());
    }

    @Test
    void aTenMegabyteTextPayloadIsHashedWithOneCopyAtMost() throws Throwable {
        fx.call(uploads, "document", "warm-up", "small");
        String body = "y".repeat(TEN_MB);

        long allocated = allocatedDuring(() -> fx.call(uploads, "document", "req-1", body));

        System.out.println("a 10 MB String payload: the call allocated " + allocated + " bytes");
        assertTrue(allocated < ONE_COPY_BUDGET, "allocated " + allocated + " bytes for a " + TEN_MB + "-char payload");
        assertShortKeyWithoutTheArgument("big:document", "yyyyyyyy");
    }

    @Test
    void scopePlaceholdersCannotMakeAKeyLongerThanEveryStoreAccepts() {
        String huge = "t".repeat(100_000);
        IdempotencyKeyException e = assertThrows(IdempotencyKeyException.class,
                () -> fx.call(uploads, "tenant", huge, "id"));
        assertTrue(e.getMessage().contains("tenant"), e.getMessage());
        assertEquals(0, fx.events.stream().filter(ev -> ev.type() == IdempotencyEventType.EXECUTED).count());
    }

    private void assertShortKeyWithoutTheArgument(String scope, String argumentSample) {
        String key = fx.last(IdempotencyEventType.EXECUTED).key();
        assertEquals("idem:test:" + scope + ":", key.substring(0, key.length() - 32), key);
        assertTrue(key.length() <= IdempotencyStore.MAX_KEY_LENGTH);
        assertFalse(key.contains(argumentSample), key);
        assertFalse(fx.store.get(key).orElseThrow().payloadHash().contains(argumentSample));
    }

    private interface Call {
        Object run() throws Throwable;
    }

    private static long allocatedDuring(Call call) throws Throwable {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        call.run();
        return threads.getThreadAllocatedBytes(id) - before;
    }
}
