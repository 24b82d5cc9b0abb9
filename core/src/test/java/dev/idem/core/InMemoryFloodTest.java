package dev.idem.core;

import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * SEMANTICS.md section 10 under load: two million distinct keys through {@code @Idempotent} with
 * {@code idem.memory.maximumSize = 10000}, in a JVM of its own with a 64 MB heap that an unbounded store outgrows
 * within the first hundred thousand keys (and MemoryFlood stops at the first call that leaves the store over its
 * bound). {@link MemoryFlood} does the calls and checks what it can from inside;
 * this test checks its report and its log.
 */
class InMemoryFloodTest {
    /** The warnings these tests provoke on purpose are asserted, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    private static final int KEYS = 2_000_000;
    private static final int BOUND = 10_000;

    @TempDir
    Path dir;

    @Test
    void twoMillionDistinctKeysStayWithinASmallHeapReportEvictionsAndNeverEvictARunningExecution() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path stdout = dir.resolve("flood.out");
        Path stderr = dir.resolve("flood.err");
        Process process = new ProcessBuilder(List.of(java.toString(), "-Xmx64m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), MemoryFlood.class.getName(),
                String.valueOf(KEYS), String.valueOf(BOUND)))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        process.getOutputStream().close();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            fail("the flood did not finish within 2 minutes; it printed:\n" + Files.readString(stdout));
        }
        String report = Files.readString(stdout);
        String log = Files.readString(stderr);
        String all = "exit " + process.exitValue() + "\n--- stdout\n" + report + "--- stderr\n" + log;
        assertEquals(0, process.exitValue(), all); // OutOfMemoryError, or a promise MemoryFlood found broken
        assertEquals("ok", value(report, "result"), all);

        long size = Long.parseLong(value(report, "size"));
        assertEquals(KEYS, Long.parseLong(value(report, "runs")), all);
        assertTrue(Long.parseLong(value(report, "largestSize")) <= BOUND, all);
        assertEquals(KEYS + MemoryFlood.HELD - size, Long.parseLong(value(report, "evicted")), all);
        assertEquals(0, Long.parseLong(value(report, "evictedHeld")), all);
        assertEquals(0, Long.parseLong(value(report, "leaseLost")), all);
        assertEquals(size - MemoryFlood.HELD, Long.parseLong(value(report, "replayed")), all);
        // A fixed heap: measured after a full collection every 200,000 keys, it never grew with the keys.
        List<Long> used = Arrays.stream(value(report, "usedMB").split(",")).map(Long::valueOf).toList();
        assertEquals(KEYS / MemoryFlood.CHECKPOINT, used.size(), all);
        assertTrue(used.stream().allMatch(mb -> mb <= 32) && used.get(used.size() - 1) <= used.get(0) + 4, all);
        // The clock stood still, so two million evictions made exactly one warning line, naming what to do.
        List<String> warnings = log.lines().filter(l -> l.contains("evicted by the in-memory store's bound")).toList();
        assertEquals(1, warnings.size(), all);
        assertTrue(warnings.get(0).contains("idem.memory.maximumSize") && warnings.get(0).contains("shared store")
                && warnings.get(0).contains("flood:request"), all);
    }

    private static String value(String report, String key) {
        return report.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                .findFirst().orElse(null);
    }

}
