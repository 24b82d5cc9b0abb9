package dev.idem.spring;

import dev.idem.testsupport.ChildJvm;
import dev.idem.testsupport.RedisServerProcess;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two Spring Boot applications in two JVMs sharing one store, made from the applications' own beans: the records in
 * their PostgreSQL through their {@code DataSource} ({@code idem.store=jdbc}), or in Redis through Spring Data Redis's
 * client ({@code idem.store=redis}). The same keys called at once from four threads of each run once each (an
 * execution is a row of the applications' own table), and every caller of a key gets that one execution's result.
 */
class TwoProcessesTest {
    private static final int THREADS = 4;
    private static final int KEYS = 40;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void twoApplicationsOnOnePostgresqlRunEachKeyOnce() throws Exception {
        String records = "two_jvm_records_" + UUID.randomUUID().toString().substring(0, 8);
        try {
            runEachKeyOnce("idem.store=jdbc", "idem.jdbc.table=" + records, "idem.jdbc.createTable=true");
        } finally {
            JdbcTemplate database = database();
            database.execute("drop table if exists " + records);
            database.execute("drop sequence if exists " + records + "_tokens");
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void twoApplicationsOnOneRedisRunEachKeyOnce() throws Exception {
        String configured = System.getenv("IDEM_TEST_REDIS_URI");
        RedisServerProcess started = configured == null || configured.isBlank()
                ? RedisServerProcess.start("IDEM_TEST_REDIS_URI is not set and the two-process Redis test is") : null;
        try {
            String uri = started != null ? started.uri() : configured.trim();
            runEachKeyOnce("idem.store=redis", "spring.data.redis.url=" + uri,
                    "idem.redis.prefix=two-jvm-" + UUID.randomUUID().toString().substring(0, 8));
        } finally {
            if (started != null) {
                started.close();
            }
        }
    }

    /** Two applications with the store {@code properties} name, on the same keys at once: each key runs once. */
    private static void runEachKeyOnce(String... properties) throws Exception {
        String runs = "two_jvm_runs_" + UUID.randomUUID().toString().substring(0, 8);
        JdbcTemplate database = database();
        database.execute("create table " + runs + " (report_key varchar(100) not null, pid bigint not null)");
        List<String> arguments = new ArrayList<>(List.of(Integer.toString(THREADS), Integer.toString(KEYS), runs,
                "spring.datasource.url=" + TestPostgres.url()));
        arguments.addAll(List.of(properties));
        List<ChildJvm> processes = new ArrayList<>();
        try {
            for (int p = 0; p < 2; p++) {
                processes.add(ChildJvm.of(SharedStoreWorker.class).name("app-" + p)
                        .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
                        .args(arguments.toArray(String[]::new)).start());
            }
            for (ChildJvm process : processes) {
                process.awaitLines("READY", 1, Duration.ofSeconds(150)); // a Spring start on a busy machine
            }
            for (ChildJvm process : processes) {
                process.send("GO");
            }
            Map<String, List<String>> results = new HashMap<>();
            for (ChildJvm process : processes) {
                process.awaitLines("DONE", 1, Duration.ofSeconds(180));
                assertEquals(List.of(), process.lines("ERROR "), process::toString);
                for (String line : process.lines("RESULT ")) {
                    String[] parts = line.split(" ");
                    results.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(parts[1]);
                }
            }
            assertEquals(KEYS, results.size(), "every key was called");
            results.forEach((key, values) -> {
                assertEquals(2 * THREADS, values.size(), key);
                assertTrue(values.stream().allMatch(values.get(0)::equals),
                        () -> "every caller of " + key + " gets the one execution's result: " + values);
            });
            List<Map<String, Object>> executions = database.queryForList(
                    "select report_key, count(*) as n from " + runs + " group by report_key");
            assertEquals(KEYS, executions.size(), "every key ran");
            for (Map<String, Object> execution : executions) {
                assertEquals(1L, ((Number) execution.get("n")).longValue(), () -> "ran more than once: " + execution);
            }
        } finally {
            for (ChildJvm process : processes) {
                process.close();
            }
            database.execute("drop table if exists " + runs);
        }
    }

    private static JdbcTemplate database() {
        return new JdbcTemplate(new DriverManagerDataSource(TestPostgres.url()));
    }
}
