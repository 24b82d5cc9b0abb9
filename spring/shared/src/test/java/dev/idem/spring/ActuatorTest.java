package dev.idem.spring;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The actuator as an operator reaches it: the application on a real web server on a loopback port, its
 * {@code health} and {@code idempotency} endpoints read and written with a real HTTP client. The store is the jdbc
 * store on an H2 database the test can take away.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ActuatorTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** Holds its key in progress until the test lets it go, as an owner that died mid-call would. */
    static class Exports {
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);

        public boolean awaitStarted() throws InterruptedException {
            return started.await(30, TimeUnit.SECONDS);
        }

        public void finish() {
            finish.countDown();
        }

        @Idempotent(scope = "exports:run", lease = "10m", waitTimeout = "0ms")
        public String export(@IdempotencyKey String batch) throws InterruptedException {
            started.countDown();
            finish.await(1, TimeUnit.MINUTES);
            return "exported " + batch;
        }
    }

    /** The starter's own way: {@code idem.store=jdbc} on the application's {@code DataSource}. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ExportsApp {
        @Bean
        DriverManagerDataSource recordsDatabase() {
            return new DriverManagerDataSource("jdbc:h2:mem:actuator-test;DB_CLOSE_DELAY=-1");
        }

        @Bean
        Exports exports() {
            return new Exports();
        }

        /** Where the test learns a completed call's key, as an operator learns it from Idem's events. */
        @Bean
        ExecutedKeys executedKeys() {
            return new ExecutedKeys();
        }
    }

    /** The keys of the executions whose result was stored. */
    static class ExecutedKeys implements IdempotencyListener {
        private final List<String> keys = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(IdempotencyEvent event) {
            if (event.type() == IdempotencyEventType.EXECUTED) {
                keys.add(event.key());
            }
        }

        String last() {
            return keys.get(keys.size() - 1);
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(ExportsApp.class).web(WebApplicationType.SERVLET)
                .bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                .properties("server.port=0", "server.address=127.0.0.1", "idem.store=jdbc",
                        "idem.jdbc.createTable=true",
                        "management.endpoints.web.exposure.include=health,idempotency",
                        "management.endpoint.health.show-details=always")
                .properties(properties).run();
    }

    @Test
    void theStoresHealthIsDownWhenItsDatabaseCannotServeAndTheIndicatorIsOffByDefault() throws Exception {
        try (ConfigurableApplicationContext app = start("management.health.idem.enabled=true")) {
            HttpResponse<String> up = get(app, "/actuator/health/idem");
            assertEquals(200, up.statusCode(), up.body());
            assertTrue(up.body().contains("\"idemJdbcStore\"") && up.body().contains("\"UP\""), up.body());

            new JdbcTemplate(app.getBean(DriverManagerDataSource.class)).execute("SHUTDOWN");

            HttpResponse<String> down = get(app, "/actuator/health/idem");
            assertEquals(503, down.statusCode(), down.body());
            assertTrue(down.body().contains("\"DOWN\"") && down.body().contains("error"), down.body());
        }
        try (ConfigurableApplicationContext app = start()) {
            assertEquals(404, get(app, "/actuator/health/idem").statusCode(), "off unless the application asks");
        }
    }

    @Test
    void anOperatorSeesAStuckRecordAndReleasesItUnderItsTokenSoTheNextCallRuns() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            Exports exports = app.getBean(Exports.class);
            CompletableFuture<String> stuck = CompletableFuture.supplyAsync(() -> {
                try {
                    return exports.export("b-7");
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(exports.awaitStarted());
            String key = keyOfTheStuckCall(exports);

            HttpResponse<String> stores = get(app, "/actuator/idempotency");
            assertTrue(stores.body().contains("\"idemJdbcStore\"") && stores.body().contains("\"reachable\":true"),
                    stores.body());
            HttpResponse<String> record = get(app, "/actuator/idempotency/" + key);
            assertEquals(200, record.statusCode(), record.body());
            assertTrue(record.body().contains("\"state\":\"IN_PROGRESS\""), record.body());
            long token = Long.parseLong(field(record.body(), "fencingToken"));

            HttpResponse<String> wrongToken = post(app, "/actuator/idempotency/" + key,
                    "{\"fencingToken\":" + (token + 1) + "}");
            assertTrue(wrongToken.body().contains("\"released\":false"), wrongToken.body());
            assertTrue(get(app, "/actuator/idempotency/" + key).body().contains("IN_PROGRESS"), "left alone");

            HttpResponse<String> released = post(app, "/actuator/idempotency/" + key,
                    "{\"fencingToken\":" + token + "}");
            assertTrue(released.body().contains("\"released\":true"), released.body());
            assertEquals(404, get(app, "/actuator/idempotency/" + key).statusCode(), "no record now");

            exports.finish();
            stuck.get(30, TimeUnit.SECONDS); // its completion is refused by fencing: the key was released

            assertEquals("exported b-8", exports.export("b-8"));
            String completed = get(app, "/actuator/idempotency/" + app.getBean(ExecutedKeys.class).last()).body();
            assertTrue(completed.contains("\"state\":\"COMPLETED\"") && completed.contains("\"resultBytes\":"),
                    completed);
            assertFalse(completed.contains("exported"), "the endpoint never shows the result: " + completed);
        }
    }

    /** The stuck call's key, from the message a duplicate gets while it runs. */
    private static String keyOfTheStuckCall(Exports exports) {
        try {
            exports.export("b-7");
            throw new AssertionError("a duplicate of a running call must be refused (waitTimeout = 0ms)");
        } catch (RuntimeException | InterruptedException refused) {
            Matcher key = Pattern.compile("idem:\\S+:exports:run:[0-9a-f]+").matcher(refused.getMessage());
            assertTrue(key.find(), refused.getMessage());
            return key.group();
        }
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
        assertTrue(m.find(), json);
        return m.group(1);
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext app, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(uri(app, path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(ConfigurableApplicationContext app, String path, String json)
            throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(uri(app, path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext app, String path) {
        return URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + path);
    }

}
