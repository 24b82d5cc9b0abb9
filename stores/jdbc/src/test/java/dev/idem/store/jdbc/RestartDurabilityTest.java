package dev.idem.store.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Restart durability on SQLite: a JVM completes a call into a database file and exits; a second JVM, started after
 * it, replays the stored result from the file and does not run the method.
 */
class RestartDurabilityTest {
    private final Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "sqlite").toAbsolutePath();
    private final String url = "jdbc:sqlite:" + dir.resolve("restart-" + UUID.randomUUID() + ".db");
    private final String table = JdbcStoreTck.uniqueTable();

    @AfterEach
    void drop() throws Exception {
        JdbcStoreTck.dropTable(url, table);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aCompletedRecordSurvivesTheRestartAndIsReplayed() throws Exception {
        Files.createDirectories(dir);
        JdbcIdempotencyStore.builder(url).table(table).createTable(true).build().close();
        String[] args = {"url=" + url, "table=" + table, "scope=suite:restart-" + UUID.randomUUID(), "key=k"};

        List<String> first;
        try (WorkerProcess before = WorkerProcess.start("run", args)) {
            first = before.finish(Duration.ofSeconds(60));
        }
        try (WorkerProcess after = WorkerProcess.start("run", args)) {
            List<String> second = after.finish(Duration.ofSeconds(60));
            assertTrue(first.stream().anyMatch(l -> l.startsWith("STARTED ")), "the first JVM ran the method");
            assertTrue(second.stream().noneMatch(l -> l.startsWith("STARTED ")), "the second JVM did not: " + second);
            assertEquals(result(first), result(second), "it replayed the first JVM's result from the file");
        }
    }

    private static String result(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("RESULT ")).findFirst().orElseThrow().split(" ")[2];
    }
}
