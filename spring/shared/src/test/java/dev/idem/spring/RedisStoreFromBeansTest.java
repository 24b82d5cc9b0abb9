package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.testsupport.RedisServerProcess;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code idem.store=redis} from the application's beans, on the real Redis ({@code IDEM_TEST_REDIS_URI}, else a
 * {@code redis-server} the test starts): the store over Spring Data Redis's Lettuce client, or over a
 * {@code RedisClient} bean; {@code idem.redis.uri} when set; what stops the context without either.
 */
class RedisStoreFromBeansTest {
    /** A port nothing listens on: a client of it cannot connect. */
    private static final String NOWHERE = "redis://127.0.0.1:1";
    private static final String DATA_REDIS_AUTO_CONFIGURATION_BOOT3 =
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration";
    private static final String DATA_REDIS_AUTO_CONFIGURATION_BOOT4 =
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration";
    private static RedisServerProcess started;
    private static String uri;

    static class Quotes {
        private final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "spring-redis:quote")
        public String quote(String id) {
            runs.incrementAndGet();
            return "quote " + id;
        }

        public int runs() {
            return runs.get();
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class SpringDataRedisApp {
        @Bean
        Quotes quotes() {
            return new Quotes();
        }
    }

    /** Spring Data Redis points nowhere; the application's own RedisClient at the server. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientBeanApp extends SpringDataRedisApp {
        @Bean(destroyMethod = "shutdown")
        RedisClient redisClient() {
            return RedisClient.create(uri);
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration(excludeName = {DATA_REDIS_AUTO_CONFIGURATION_BOOT3, DATA_REDIS_AUTO_CONFIGURATION_BOOT4})
    static class NoRedisApp extends SpringDataRedisApp {
    }

    @BeforeAll
    static void server() throws Exception {
        String configured = System.getenv("IDEM_TEST_REDIS_URI");
        if (configured != null && !configured.isBlank()) {
            uri = configured.trim();
        } else {
            started = RedisServerProcess.start("IDEM_TEST_REDIS_URI is not set and the starter's Redis tests are");
            uri = started.uri();
        }
    }

    @AfterAll
    static void stopServer() {
        if (started != null) {
            started.close();
        }
    }

    @Test
    void theStoreUsesSpringDataRedissLettuceClient() {
        String prefix = "spring-sdr-" + System.nanoTime();
        try (ConfigurableApplicationContext context = Applications.start(SpringDataRedisApp.class,
                "spring.data.redis.url=" + uri, "idem.store=redis", "idem.redis.prefix=" + prefix)) {
            assertInstanceOf(RedisIdempotencyStore.class, context.getBean(IdempotencyStore.class));
            Quotes quotes = context.getBean(Quotes.class);
            assertEquals("quote 1", quotes.quote("1"));
            assertEquals("quote 1", quotes.quote("1"));
            assertEquals(1, quotes.runs(), "the duplicate was replayed");
            Set<String> keys = context.getBean(StringRedisTemplate.class).keys(prefix + ":*");
            assertTrue(keys != null && !keys.isEmpty(), "the record is on the application's server: " + keys);
        }
    }

    @Test
    void aRedisClientBeanOfTheApplicationsIsUsed() {
        try (ConfigurableApplicationContext context = Applications.start(ClientBeanApp.class,
                "spring.data.redis.url=" + NOWHERE, "idem.store=redis",
                "idem.redis.prefix=spring-client-" + System.nanoTime())) {
            Quotes quotes = context.getBean(Quotes.class);
            assertEquals("quote 2", quotes.quote("2"), "the store reached the server through the RedisClient bean");
            assertEquals("quote 2", quotes.quote("2"));
            assertEquals(1, quotes.runs());
        }
    }

    @Test
    void idemRedisUriNamesTheStoresOwnServer() {
        try (ConfigurableApplicationContext context = Applications.start(SpringDataRedisApp.class,
                "spring.data.redis.url=" + NOWHERE, "idem.store=redis", "idem.redis.uri=" + uri,
                "idem.redis.prefix=spring-uri-" + System.nanoTime())) {
            Quotes quotes = context.getBean(Quotes.class);
            assertEquals("quote 3", quotes.quote("3"));
            assertEquals(1, quotes.runs());
        }
    }

    @Test
    void withoutAClientOrAUriTheContextStopsNamingTheProperty() {
        IdempotencyConfigurationException e = Applications.refused(IdempotencyConfigurationException.class,
                NoRedisApp.class, "idem.store=redis");
        assertTrue(e.getMessage().contains("idem.redis.uri"), e.getMessage());
    }

    @Test
    void aBadRedisSettingStopsTheContextNamingIt() {
        IdempotencyConfigurationException e = Applications.refused(IdempotencyConfigurationException.class,
                SpringDataRedisApp.class, "spring.data.redis.url=" + uri, "idem.store=redis",
                "idem.redis.prefix=a:b");
        assertTrue(e.getMessage().contains("a:b"), e.getMessage());
    }
}
