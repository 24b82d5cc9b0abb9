package dev.idem.benchmarks;

import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import org.openjdk.jol.info.GraphLayout;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Measures the heap one typical record takes in the in-memory store: a key as the engine makes it
 * ({@code idem:prod:payments:charge:<32 hex>}), a payload hash (64 hex), and a 100-byte stored result, kept for 1 h.
 * docs/stores.md ("The in-memory store's bound") quotes its output.
 *
 * <p>Two independent measurements: the used heap after full collections before and after filling a store with
 * {@code records} records (what the process pays, with the hash table's and the expiry queues' share), and JOL's walk of
 * the object graph of a store of {@code sample} records (every object reachable from the store, counted once).
 *
 * <pre>
 * mvn -q -B -ntp -pl benchmarks -am package -DskipTests
 * java -Xmx2g -XX:+UseSerialGC -Djdk.attach.allowAttachSelf=true -Djol.magicFieldOffset=true \
 *     -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.MemoryPerRecord
 * </pre>
 *
 * (JOL attaches to its own JVM, and reads the field offsets of hidden lambda classes, with those two
 * properties.)
 *
 * Arguments: {@code [records (1000000)] [sample (100000)] [result bytes (100)]}.
 */
public final class MemoryPerRecord {
    private static final String OWNER = "4711/1a2b3c4d"; // one engine's owner, shared by its records
    private static final String KEY_PREFIX = "idem:prod:payments:charge:";

    private MemoryPerRecord() {
    }

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int sample = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int resultBytes = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        System.out.printf(Locale.ROOT, "record: key %d chars, payload hash 64 chars, result %d bytes, ttl 1h%n",
                KEY_PREFIX.length() + 32, resultBytes);
        System.out.printf(Locale.ROOT, "JVM: %s %s, max heap %d MB%n", System.getProperty("java.vm.name"),
                System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20);

        // Warm up: load and initialise every class the measured path touches, so the delta is records only.
        fill(unbounded(), 20_000, resultBytes);

        long before = usedAfterGc();
        InMemoryIdempotencyStore store = unbounded();
        fill(store, records, resultBytes);
        long after = usedAfterGc();
        double heapPerRecord = (after - before) / (double) records;
        System.out.printf(Locale.ROOT,
                "used heap after GC: %,d records -> %.0f bytes per record (%.1f MB per 100,000)%n",
                records, heapPerRecord, heapPerRecord * 100_000 / (1 << 20));
        System.out.printf(Locale.ROOT, "store's own estimate: %.0f bytes per record%n",
                store.estimatedBytes() / (double) store.estimatedSize());
        store = null;

        InMemoryIdempotencyStore empty = unbounded();
        InMemoryIdempotencyStore filled = unbounded();
        fill(filled, sample, resultBytes);
        long graph = GraphLayout.parseInstance(filled).totalSize() - GraphLayout.parseInstance(empty).totalSize();
        System.out.printf(Locale.ROOT, "JOL object graph: %,d records -> %.0f bytes per record%n", sample,
                graph / (double) sample);
    }

    private static InMemoryIdempotencyStore unbounded() {
        return new InMemoryIdempotencyStore(Clock.systemUTC(), Long.MAX_VALUE, Long.MAX_VALUE);
    }

    private static void fill(InMemoryIdempotencyStore store, int n, int resultBytes) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Duration lease = Duration.ofSeconds(30);
        Duration ttl = Duration.ofHours(1);
        for (int i = 0; i < n; i++) {
            String key = KEY_PREFIX + hex(random.nextLong()) + hex(random.nextLong());
            String payloadHash = hex(random.nextLong()) + hex(random.nextLong()) + hex(random.nextLong())
                    + hex(random.nextLong());
            ClaimOutcome outcome = store.claim(new ClaimRequest(key, payloadHash, OWNER, lease, Duration.ZERO));
            long token = ((ClaimOutcome.Acquired) outcome).fencingToken();
            byte[] result = new byte[resultBytes];
            random.nextBytes(result);
            store.complete(key, token, result, ttl);
        }
        Optional<IdempotencyRecord> any = store.get(KEY_PREFIX + "0");
        if (any.isPresent()) {
            throw new AssertionError("unexpected record " + any.get());
        }
    }

    private static String hex(long v) {
        String s = Long.toHexString(v);
        return "0".repeat(16 - s.length()) + s;
    }

    private static long usedAfterGc() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
