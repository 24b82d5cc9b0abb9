package dev.idem.core.hostile;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyStoreException;
import dev.idem.Idempotent;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 7 against a real store: an attacker who can write to the store replaces a completed record's
 * result bytes. Every later call on the key gets an {@link IdempotencyStoreException} naming the key and the codec;
 * decoding instantiates nothing ({@link GadgetB} records whether its static initialiser or {@code readObject} ran),
 * allocates nothing huge (measured with {@code ThreadMXBean.getThreadAllocatedBytes}), and the method is not run a
 * second time by accident (the operation did happen).
 *
 * <p>Written once against the store SPI: each store's module runs it by extending this class with
 * {@link #openStore()}. Every test uses a namespace of its own, so it shares a server with other suites safely.
 */
public abstract class PoisonedResultsContract {
    /** More than the engine, a driver and a round trip need, far less than the 40 MB the poisoned length claims. */
    private static final long ALLOCATION_BUDGET = 8L << 20;
    private static final int CLAIMED_LENGTH = 40_000_000;
    private static final byte[] SCAN = {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE};

    /** What the method returns: a record with an array, so arrays are inside the allow-list. */
    public record Receipt(String id, byte[] scan) implements Serializable {
    }

    /** The operation under attack. */
    public static class Receipts {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "hostile:receipt", codec = "java")
        public Receipt issue(@IdempotencyKey String id) {
            runs.incrementAndGet();
            return new Receipt(id, SCAN.clone());
        }
    }

    /** The refusals are warnings an operator must see; here they are asserted instead of printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    private final String namespace = "hostile-" + UUID.randomUUID().toString().substring(0, 8);
    private final Receipts receipts = new Receipts();
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private IdempotencyStore store;
    private String key;
    private byte[] genuine;

    /**
     * A store of the kind under test on a backend this test may write to. Closed after each test.
     *
     * @return the store
     * @throws Exception when it cannot be opened
     */
    protected abstract IdempotencyStore openStore() throws Exception;

    @BeforeEach
    void runOnceAndKeepTheGenuineBytes() throws Throwable {
        store = openStore();
        try (IdemEngine engine = engine()) {
            call(engine);
        }
        key = events.stream().filter(e -> e.type() == IdempotencyEventType.EXECUTED).findFirst().orElseThrow().key();
        genuine = store.get(key).orElseThrow().result();
        assertEquals(1, receipts.runs.get());
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.delete(key == null ? "none" : key);
            store.close();
        }
    }

    @Test
    void aSerializedClassOutsideTheAllowListIsRefusedAndNeverInstantiated() throws Throwable {
        byte[] stream = serialized(new GadgetA());
        byte[] decoy = "dev.idem.core.hostile.GadgetA".getBytes(StandardCharsets.UTF_8);
        int at = indexOf(stream, decoy);
        System.arraycopy(GadgetB.NAME.getBytes(StandardCharsets.UTF_8), 0, stream, at, decoy.length);
        refusedEveryTime(poison(javaHeader(), new byte[] {1}, stream), "java");
    }

    @Test
    void aHugeLengthPrefixIsRefusedWithoutAllocatingIt() throws Throwable {
        byte[] poisoned = genuine.clone();
        int at = indexOf(poisoned, SCAN);
        ByteBuffer.wrap(poisoned, at - 4, 4).putInt(CLAIMED_LENGTH); // the byte[]'s length, just before its bytes
        refusedEveryTime(poisoned, "java");
    }

    @Test
    void truncatedBytesAreRefused() throws Throwable {
        refusedEveryTime(Arrays.copyOf(genuine, genuine.length / 2), "java");
    }

    @Test
    void anotherCodecsTagIsRefusedAndJsonNamingAClassBuildsNothing() throws Throwable {
        byte[] json = ("{\"@class\":\"" + GadgetB.NAME + "\",\"command\":\"touch /tmp/pwned\"}")
                .getBytes(StandardCharsets.UTF_8);
        IdempotencyStoreException e = refusedEveryTime(poison(header("json"), json), "java");
        assertTrue(e.getMessage().contains("'json'"), e.getMessage());
    }

    @Test
    void bytesThatAreNoResultAtAllAreRefused() throws Throwable {
        refusedEveryTime("rm -rf / # not a result".getBytes(StandardCharsets.UTF_8), "java");
    }

    /**
     * Replaces the record's result with {@code poisoned}, then calls twice through fresh engines (no result kept in
     * this JVM): both are refused naming the key and the codec, the method never runs again, nothing is built from
     * the bytes and nothing huge is allocated.
     */
    private IdempotencyStoreException refusedEveryTime(byte[] poisoned, String codec) throws Throwable {
        overwrite(poisoned);
        IdempotencyStoreException first = null;
        for (int attempt = 0; attempt < 2; attempt++) {
            try (IdemEngine engine = engine()) {
                long before = allocatedBytes();
                IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> call(engine));
                long allocated = allocatedBytes() - before;
                assertTrue(e.getMessage().contains(key), e.getMessage());
                assertTrue(e.getMessage().contains("'" + codec + "'"), e.getMessage());
                assertTrue(allocated < ALLOCATION_BUDGET, "decoding allocated " + allocated + " bytes");
                first = first == null ? e : first;
            }
        }
        assertEquals(1, receipts.runs.get(), "the operation happened once; poisoned bytes never make it run again");
        assertEquals(List.of(), GadgetB.Log.EVENTS, "nothing named by the bytes was initialised or deserialised");
        assertEquals(2, events.stream().filter(e -> e.type() == IdempotencyEventType.RESULT_UNREADABLE).count());
        List<String> warned = log.lines(Level.WARNING).stream().filter(l -> l.contains("RESULT_UNREADABLE")).toList();
        assertEquals(2, warned.size(), "one warning per refused call: " + warned);
        for (String line : warned) {
            assertTrue(line.contains(key) && line.contains("'" + codec + "'"), "names the key and the codec: " + line);
        }
        assertEquals(RecordState.COMPLETED, store.get(key).orElseThrow().state(), "the record is left for a person");
        return first;
    }

    /** Writes {@code poisoned} as the key's completed result, as someone with write access to the store could. */
    private void overwrite(byte[] poisoned) {
        IdempotencyRecord record = store.get(key).orElseThrow();
        store.delete(key);
        ClaimOutcome claim = store.claim(new ClaimRequest(key, record.payloadHash(), "attacker",
                Duration.ofSeconds(30), Duration.ZERO));
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, claim).fencingToken();
        assertTrue(store.complete(key, token, poisoned, Duration.ofHours(1)));
    }

    private IdemEngine engine() {
        return IdemEngine.create(IdemSettings.custom().namespace(namespace).store("hostile", store)
                .defaultStore("hostile").listener(events::add).build());
    }

    private Object call(IdemEngine engine) throws Throwable {
        Method issue = Receipts.class.getMethod("issue", String.class);
        Object[] args = {"R-1"};
        return engine.invoke(issue, args, () -> {
            try {
                return issue.invoke(receipts, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    /** The header every stored result begins with: 'I', the codec name's length, the name, the format version. */
    private static byte[] header(String codec) {
        byte[] name = codec.getBytes(StandardCharsets.US_ASCII);
        byte[] header = new byte[name.length + 3];
        header[0] = 'I';
        header[1] = (byte) name.length;
        System.arraycopy(name, 0, header, 2, name.length);
        header[name.length + 2] = 1;
        return header;
    }

    private byte[] javaHeader() {
        return Arrays.copyOf(genuine, header("java").length);
    }

    private static byte[] poison(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] serialized(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found in the stored bytes");
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
