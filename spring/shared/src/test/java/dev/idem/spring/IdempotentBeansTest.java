package dev.idem.spring;

import dev.idem.Idempotent;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEventType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code @Idempotent} on beans of a real application context, advised through Spring AOP by the starter alone. */
class IdempotentBeansTest {
    /** A service as users write one: no interface, a class-based proxy (whose fields are not the bean's). */
    static class Orders {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Idempotent(scope = "orders:create", ttl = "10m")
        public String create(String orderId, int amount) {
            return "order " + orderId + " #" + runs.incrementAndGet() + " for " + amount;
        }
    }

    interface Greeter {
        String greet(String name);
    }

    /** Called through its interface; the annotation is on the implementation, as Java's rules require. */
    static class PoliteGreeter implements Greeter {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Override
        @Idempotent(scope = "greet")
        public String greet(String name) {
            runs.incrementAndGet();
            return "hello " + name;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class OrdersApp {
        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        PoliteGreeter greeter() {
            return new PoliteGreeter();
        }
    }

    @Test
    void aDuplicateCallOfABeanMethodIsAnsweredWithTheFirstResult() {
        try (ConfigurableApplicationContext context = Applications.start(OrdersApp.class)) {
            Orders orders = context.getBean(Orders.class);
            assertTrue(AopUtils.isAopProxy(orders), "the bean is proxied");

            String first = orders.create("A-1", 30);
            assertEquals(first, orders.create("A-1", 30));
            assertNotEquals(first, orders.create("A-2", 30));
            assertEquals(2, orders.runs(), "runs of the body");

            Greeter greeter = context.getBean(Greeter.class);
            assertEquals("hello ada", greeter.greet("ada"));
            assertEquals("hello ada", greeter.greet("ada"));
            assertEquals(1, context.getBean(PoliteGreeter.class).runs(), "runs of the body");
        }
    }

    /** A service whose method holds every caller until the test lets it go. */
    static class SlowReports {
        private final AtomicInteger runs = new AtomicInteger();
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        public int runs() {
            return runs.get();
        }

        public boolean awaitEntered() throws InterruptedException {
            return entered.await(30, TimeUnit.SECONDS);
        }

        public void release() {
            release.countDown();
        }

        @Idempotent(scope = "reports")
        public String build(String day) throws InterruptedException {
            runs.incrementAndGet();
            entered.countDown();
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            return "report " + day;
        }
    }

    @Test
    @Timeout(60)
    void concurrentIdenticalCallsThroughTheProxyRunOnce() throws Exception {
        AtomicInteger joined = new AtomicInteger();
        IdemEngine engine = IdemEngine.create(IdemSettings.custom().listener(event -> {
            if (event.type() == IdempotencyEventType.COALESCED) {
                joined.incrementAndGet();
            }
        }).build());
        ReportsApp.engine = engine;
        try (ConfigurableApplicationContext context = Applications.start(ReportsApp.class)) {
            assertSame(engine, context.getBean(IdemEngine.class), "the application's own engine");
            SlowReports reports = context.getBean(SlowReports.class);
            ExecutorService callers = Executors.newFixedThreadPool(8);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    results.add(callers.submit(() -> reports.build("2026-12-02")));
                }
                assertTrue(reports.awaitEntered(), "the first call started");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (joined.get() < 7) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("only " + joined.get() + " of 7 callers joined the running call"
                                + " within 30 s");
                    }
                    Thread.onSpinWait();
                }
                reports.release();
                for (Future<String> result : results) {
                    assertEquals("report 2026-12-02", result.get(30, TimeUnit.SECONDS));
                }
                assertEquals(1, reports.runs(), "runs of the body");
            } finally {
                reports.release();
                callers.shutdownNow();
            }
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ReportsApp {
        static IdemEngine engine;

        @Bean
        SlowReports reports() {
            return new SlowReports();
        }

        @Bean(destroyMethod = "close")
        IdemEngine idemEngine() {
            return engine;
        }
    }
}
