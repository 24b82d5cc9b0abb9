package dev.idem.samples.orders;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample as its users run it: the application on a real Tomcat on a loopback port, called by a real HTTP client.
 * A retried POST creates one order; a key reused with another body is refused; concurrent duplicates share one
 * execution. Each subclass runs it on one of the sample's set-ups; keys are new in every run, since a database
 * keeps the orders and records of earlier ones.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS) // one application per set-up, started once for its tests
abstract class OrdersApiTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private ConfigurableApplicationContext app;
    private URI orders;

    /** {@return the application's command-line arguments beside the loopback port} */
    abstract List<String> arguments();

    @BeforeAll
    void start() {
        List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1"));
        arguments.addAll(arguments());
        app = SpringApplication.run(OrdersApplication.class, arguments.toArray(String[]::new));
        String port = app.getEnvironment().getProperty("local.server.port");
        orders = URI.create("http://127.0.0.1:" + port + "/orders");
    }

    @AfterAll
    void stop() {
        if (app != null) {
            app.close();
        }
    }

    ConfigurableApplicationContext app() {
        return app;
    }

    @Test
    void aRetriedPostCreatesOneOrderAndGetsItAgain() throws Exception {
        HttpResponse<String> first = post(key("retry-1"), "{\"item\":\"lamp\",\"quantity\":2}");
        HttpResponse<String> retry = post(key("retry-1"), "{\"item\":\"lamp\",\"quantity\":2}");

        assertEquals(201, first.statusCode(), first.body());
        assertEquals(201, retry.statusCode(), retry.body());
        assertEquals(first.body(), retry.body(), "the retry is answered with the first order");
        assertEquals(first.headers().firstValue("Location"), retry.headers().firstValue("Location"));
        assertEquals(1, rowsFor(key("retry-1")), "one order for the key");
    }

    @Test
    void aKeyReusedWithAnotherBodyIsRefusedAndCreatesNothing() throws Exception {
        assertEquals(201, post(key("reuse-1"), "{\"item\":\"chair\",\"quantity\":1}").statusCode());

        HttpResponse<String> reused = post(key("reuse-1"), "{\"item\":\"table\",\"quantity\":1}");

        assertEquals(422, reused.statusCode(), reused.body());
        assertTrue(reused.body().contains("orders:create"), "the refusal names the scope: " + reused.body());
        assertEquals(1, rowsFor(key("reuse-1")));
    }

    @Test
    void concurrentDuplicatesRunOnceAndAllGetThatOrder() throws Exception {
        int clients = 8;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            CountDownLatch ready = new CountDownLatch(clients);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return post(key("herd-1"), "{\"item\":\"desk\",\"quantity\":3}");
                }));
            }
            assertTrue(ready.await(30, TimeUnit.SECONDS));
            go.countDown();
            Set<String> bodies = new HashSet<>();
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get(60, TimeUnit.SECONDS);
                assertEquals(201, response.statusCode(), response.body());
                bodies.add(response.body());
            }
            assertEquals(1, bodies.size(), "every client got the one order: " + bodies);
            assertEquals(1, rowsFor(key("herd-1")));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRequestTheServiceRefusesIsAnsweredAsSuch() throws Exception {
        HttpResponse<String> refused = post(key("bad-1"), "{\"item\":\"lamp\",\"quantity\":0}");

        assertEquals(400, refused.statusCode(), refused.body());
        assertEquals(0, rowsFor(key("bad-1")));
    }

    static String key(String name) {
        return RUN + "-" + name;
    }

    HttpResponse<String> post(String key, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(orders).timeout(Duration.ofSeconds(30))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private int rowsFor(String key) {
        return app.getBean(JdbcTemplate.class)
                .queryForObject("select count(*) from orders where request_key = ?", Integer.class, key);
    }
}
