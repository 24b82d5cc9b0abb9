package dev.idem.spring;

import dev.idem.Idempotent;
import dev.idem.Retry;
import dev.idem.codec.ResultCodec;
import dev.idem.codec.ResultCodecProvider;
import dev.idem.core.AbandonedExecution;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.KeyCanonicalizer;
import dev.idem.core.Reconciler;
import dev.idem.core.Reconciliation;
import dev.idem.core.RetryClassifier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application's {@code IdempotencyListener}, {@code Reconciler}, {@code RetryClassifier}, codec and
 * {@code KeyCanonicalizer} beans are handed to the engine and change what a call does.
 */
class EngineExtensionsTest {

    /** A value the canonical encoding cannot take unless a canonicaliser says how. */
    static final class Sku {
        private final Object opaque = new Object(); // no field-wise encoding: an Object is not a value
        private final String code;

        Sku(String code) {
            this.code = code;
        }

        String code() {
            return code;
        }
    }

    /** Fails the first attempt with an exception no built-in classifier takes for retryable. */
    static final class FlakyUpstream extends RuntimeException {
        FlakyUpstream() {
            super("the upstream flaked");
        }
    }

    static class Catalogue {
        private final AtomicInteger runs = new AtomicInteger();
        private final AtomicInteger attempts = new AtomicInteger();

        @Idempotent(scope = "spring-ext:price", codec = "text")
        public String price(Sku sku) {
            runs.incrementAndGet();
            return "price of " + sku.code();
        }

        @Idempotent(scope = "spring-ext:stock", retry = @Retry(maxAttempts = 3, base = "1ms", cap = "1ms"))
        public String stock(String code) {
            if (attempts.incrementAndGet() == 1) {
                throw new FlakyUpstream();
            }
            return "stock of " + code;
        }

        public int runs() {
            return runs.get();
        }

        public int attempts() {
            return attempts.get();
        }
    }

    /** Stores String results as UTF-8, counting what it encodes. */
    static final class TextCodec implements ResultCodecProvider {
        final AtomicInteger encoded = new AtomicInteger();

        @Override
        public String name() {
            return "text";
        }

        @Override
        public int formatVersion() {
            return 1;
        }

        @Override
        public ResultCodec forType(Type type, ClassLoader loader) {
            return new ResultCodec() {
                @Override
                public byte[] encode(Object value) {
                    encoded.incrementAndGet();
                    return ((String) value).getBytes(StandardCharsets.UTF_8);
                }

                @Override
                public Object decode(byte[] body, int formatVersion) {
                    return new String(body, StandardCharsets.UTF_8);
                }
            };
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ExtendedApp {
        static final List<IdempotencyEvent> EVENTS = new CopyOnWriteArrayList<>();

        @Bean
        Catalogue catalogue() {
            return new Catalogue();
        }

        @Bean
        IdempotencyListener recordingListener() {
            return EVENTS::add;
        }

        @Bean
        RetryClassifier flakyUpstreamIsRetryable() {
            return failure -> failure instanceof FlakyUpstream ? RetryClassifier.Verdict.RETRYABLE
                    : RetryClassifier.Verdict.UNDECIDED;
        }

        @Bean
        TextCodec textCodec() {
            return new TextCodec();
        }

        @Bean
        KeyCanonicalizer<Sku> skuByCode() {
            return new KeyCanonicalizer<>() {
                @Override
                public Class<Sku> type() {
                    return Sku.class;
                }

                @Override
                public Object canonicalize(Sku value) {
                    return value.code();
                }
            };
        }

        @Bean
        Reconciler ordersReconciler() {
            return new Reconciler() {
                @Override
                public boolean reconciles(String operation) {
                    return operation.endsWith("#price");
                }

                @Override
                public Reconciliation reconcile(AbandonedExecution abandoned) {
                    return Reconciliation.didNotHappen();
                }
            };
        }
    }

    @Test
    void theApplicationsExtensionBeansServeTheEngine() {
        ExtendedApp.EVENTS.clear();
        try (ConfigurableApplicationContext context = Applications.start(ExtendedApp.class)) {
            Catalogue catalogue = context.getBean(Catalogue.class);

            assertEquals("price of A-1", catalogue.price(new Sku("A-1")), "the canonicaliser encoded the key");
            assertEquals("price of A-1", catalogue.price(new Sku("A-1")));
            assertEquals(1, catalogue.runs(), "two Skus of one code are one key");
            assertEquals(1, context.getBean(TextCodec.class).encoded.get(), "the codec bean stored the result");

            assertEquals("stock of B-2", catalogue.stock("B-2"));
            assertEquals(2, catalogue.attempts(), "the classifier bean made the flaky failure retryable");

            assertTrue(ExtendedApp.EVENTS.stream().anyMatch(e -> e.type() == IdempotencyEventType.EXECUTED),
                    "the listener bean received the engine's events: " + ExtendedApp.EVENTS);
            assertEquals(List.of(context.getBean(Reconciler.class)),
                    context.getBean(IdemEngine.class).settings().reconcilers(), "the reconciler bean is the engine's");
        }
    }
}
