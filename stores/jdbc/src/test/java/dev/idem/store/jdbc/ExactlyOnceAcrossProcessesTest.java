package dev.idem.store.jdbc;

import dev.idem.testsupport.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Exactly once across processes: {@value #JVMS} separate JVMs of {@value #THREADS} threads each call the same
 * {@link #KEYS} (200) keys at once through one idempotent operation over one PostgreSQL table. Each execution inserts a row
 * into a side-effect table. Afterwards that table holds exactly one row per key, and every one of the
 * JVMS x THREADS x KEYS callers got its key's one result: the result that execution wrote beside its row.
 */
class ExactlyOnceAcrossProcessesTest extends CrossProcessSuite {
    static final int JVMS = 4;
    static final int THREADS = 8;
    /** 200 unless {@code -Didem.suite.keys=N} asks for a longer run. */
    static final int KEYS = Integer.getInteger("idem.suite.keys", 200);


    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyKeyRunsOnceAndEveryCallerGetsItsResult() throws Exception {
        createTables(true);
        String scope = "suite:exactly-once-" + UUID.randomUUID();
        List<ChildJvm> workers = new ArrayList<>();
        try {
            for (int i = 0; i < JVMS; i++) {
                workers.add(JdbcWorker.start("race", "url=" + url, "table=" + table, "side=" + side.name(),
                        "scope=" + scope, "keys=" + KEYS, "threads=" + THREADS));
            }
            for (ChildJvm w : workers) {
                w.next("READY"::equals, Duration.ofSeconds(60)); // every JVM started before any calls
            }
            for (ChildJvm w : workers) {
                w.send("go");
            }
            Map<String, Set<String>> resultsByKey = new HashMap<>();
            int calls = 0;
            for (ChildJvm w : workers) {
                for (String line : w.finish(Duration.ofSeconds(90))) {
                    if (line.startsWith("RESULT ")) {
                        String[] parts = line.split(" ");
                        resultsByKey.computeIfAbsent(parts[1], k -> new HashSet<>()).add(parts[2]);
                        calls++;
                    }
                }
            }
            assertEquals(JVMS * THREADS * KEYS, calls, "every caller reported its result");

            Map<String, String> executed = new HashMap<>();
            List<String[]> rows = side.rows();
            rows.forEach(row -> executed.put(row[0], row[1]));
            assertEquals(KEYS, rows.size(), "exactly one execution per key across " + JVMS + " JVMs");
            assertEquals(KEYS, executed.size());
            for (Map.Entry<String, Set<String>> key : resultsByKey.entrySet()) {
                assertEquals(Set.of(executed.get(key.getKey())), key.getValue(),
                        "every caller of " + key.getKey() + " got the result of its one execution");
            }
        } finally {
            for (ChildJvm w : workers) {
                w.close();
            }
        }
    }
}
