package dev.idem.store.jdbc;

import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.testsupport.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM killed (SIGKILL) while it holds claims on PostgreSQL: once their lease passes, two other JVMs race for the
 * keys, and each key is taken over exactly once (one TAKEOVER event, one execution, a larger token); a late
 * completion carrying the dead owner's token is refused.
 */
class CrashTakeoverTest extends CrossProcessSuite {
    private static final int KEYS = 4;


    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKilledOwnersKeysAreTakenOverOnceEachAndItsLateCompletionIsRefused() throws Exception {
        createTables(true);
        String scope = "suite:crash-" + UUID.randomUUID();
        String[] common = {"url=" + url, "table=" + table, "scope=" + scope, "lease=1500"};

        Map<String, String> fullKeys = new HashMap<>();
        Map<String, Long> deadTokens = new HashMap<>();
        try (ChildJvm owner = JdbcWorker.start("hold", with(common, "threads=" + KEYS))) {
            for (int i = 0; i < KEYS; i++) {
                String[] started = owner.next(l -> l.startsWith("STARTED "), Duration.ofSeconds(60)).split(" ");
                fullKeys.put(started[1], started[2]);
                deadTokens.put(started[1], Long.parseLong(started[3]));
            }
            owner.kill(); // while every execution is running: its claims stay IN_PROGRESS in the table
        }
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(url).table(table).build()) {
            for (String key : fullKeys.values()) {
                assertEquals(RecordState.IN_PROGRESS, store.get(key).orElseThrow().state(), "held by the dead JVM");
            }
        }

        List<ChildJvm> heirs = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                heirs.add(JdbcWorker.start("race", with(common, "side=" + side.name(), "keys=" + KEYS,
                        "threads=4")));
            }
            for (ChildJvm heir : heirs) {
                heir.next("READY"::equals, Duration.ofSeconds(60));
            }
            for (ChildJvm heir : heirs) {
                heir.send("go");
            }
            for (ChildJvm heir : heirs) {
                lines.addAll(heir.finish(Duration.ofSeconds(60)));
            }
        } finally {
            for (ChildJvm heir : heirs) {
                heir.close();
            }
        }

        Map<String, Integer> takeovers = new HashMap<>();
        for (String line : lines) {
            if (line.startsWith("EVENT TAKEOVER ")) {
                String[] parts = line.split(" ");
                takeovers.merge(parts[2], 1, Integer::sum);
                assertTrue(Long.parseLong(parts[3]) > deadTokens.get(shortKey(fullKeys, parts[2])), line);
            }
        }
        Map<String, Integer> expected = new HashMap<>();
        fullKeys.values().forEach(k -> expected.put(k, 1));
        assertEquals(expected, takeovers, "each key taken over exactly once across both JVMs");
        List<String[]> executions = side.rows();
        assertEquals(KEYS, executions.size(), "each key ran once after the crash");

        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(url).table(table).build()) {
            for (String[] execution : executions) {
                String key = fullKeys.get(execution[0]);
                long dead = deadTokens.get(execution[0]);
                IdempotencyRecord record = store.get(key).orElseThrow();
                assertEquals(RecordState.COMPLETED, record.state());
                assertTrue(record.fencingToken() > dead);
                assertFalse(store.complete(key, dead, new byte[] {6}, Duration.ofMinutes(1)),
                        "the dead owner's late completion is refused");
                assertFalse(store.renew(key, dead, Duration.ofMinutes(1)));
                IdempotencyRecord after = store.get(key).orElseThrow();
                assertEquals(record.fencingToken(), after.fencingToken(), "and changes nothing");
                assertArrayEquals(record.result(), after.result());
            }
        }
    }

    private static String shortKey(Map<String, String> fullKeys, String fullKey) {
        return fullKeys.entrySet().stream().filter(e -> e.getValue().equals(fullKey)).findFirst().orElseThrow()
                .getKey();
    }

    static String[] with(String[] common, String... more) {
        List<String> all = new ArrayList<>(List.of(common));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
