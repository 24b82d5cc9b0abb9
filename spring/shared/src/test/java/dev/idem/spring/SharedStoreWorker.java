package dev.idem.spring;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One process of {@link TwoProcessesTest}: a Spring Boot application whose {@code @Idempotent} service records each
 * execution as a row of the application's own database, with the given properties (its store among them). It
 * prints {@code READY} once its context runs, waits for {@code GO} on its input, then calls every key from each of
 * its threads and prints {@code RESULT <key> <value>} per call, {@code ERROR <key> <exception>} per failure, and
 * {@code DONE}.
 *
 * <p>Arguments: threads, keys, the table of executions, then the application's properties
 * ({@code name=value}).
 */
public final class SharedStoreWorker {

    /** Generates a report once per key across every process: its execution is a row of {@code table}. */
    public static class Reports {
        private final JdbcTemplate jdbc;
        private final String table;

        public Reports(JdbcTemplate jdbc, String table) {
            this.jdbc = jdbc;
            this.table = table;
        }

        @Idempotent(scope = "two-processes:report", ttl = "10m", waitTimeout = "60s")
        public String generate(@IdempotencyKey String key) throws InterruptedException {
            jdbc.update("insert into " + table + " (report_key, pid) values (?, ?)", key, ProcessHandle.current().pid());
            Thread.sleep(50); // long enough for the other process's callers of the key to come while it runs
            return key + "@" + ProcessHandle.current().pid();
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class WorkerApp {
        @Bean
        public Reports reports(JdbcTemplate jdbc, org.springframework.core.env.Environment environment) {
            return new Reports(jdbc, environment.getRequiredProperty("worker.table"));
        }
    }

    private SharedStoreWorker() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int keys = Integer.parseInt(args[1]);
        List<String> properties = new ArrayList<>(List.of("worker.table=" + args[2]));
        properties.addAll(List.of(args).subList(3, args.length));
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WorkerApp.class)
                .web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                .properties(properties.toArray(String[]::new)).run()) {
            Reports reports = context.getBean(Reports.class);
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(in.readLine())) {
                throw new IllegalStateException("expected GO");
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> callers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                callers.add(pool.submit(() -> {
                    for (int k = 0; k < keys; k++) {
                        String key = "report-" + k;
                        try {
                            System.out.println("RESULT " + key + " " + reports.generate(key));
                        } catch (Exception e) {
                            System.out.println("ERROR " + key + " " + e);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> caller : callers) {
                caller.get(5, TimeUnit.MINUTES);
            }
            pool.shutdown();
            System.out.println("DONE");
        }
    }
}
