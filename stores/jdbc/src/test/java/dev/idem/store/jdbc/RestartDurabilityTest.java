package dev.idem.store.jdbc;

import dev.idem.testsupport.ChildJvm;
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
class RestartDurabilityTest extends CrossProcessSuite {
    private static final Path DIR = Path.of(System.getProperty("idem.test.dir", "target"), "sqlite").toAbsolutePath();

    RestartDurabilityTest() {
        super("jdbc:sqlite:" + DIR.resolve("restart-" + UUID.randomUUID() + ".db"));
    }


    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aCompletedRecordSurvivesTheRestartAndIsReplayed() throws Exception {
        Files.createDirectories(DIR);
        createTables(false);
        String[] args = {"url=" + url, "table=" + table, "scope=suite:restart-" + UUID.randomUUID(), "key=k"};

        List<String> first;
        try (ChildJvm before = JdbcWorker.start("run", args)) {
            first = before.finish(Duration.ofSeconds(60));
        }
        try (ChildJvm after = JdbcWorker.start("run", args)) {
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
