package dev.idem.spring;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The json codec with the modules of the application's Jackson 3 {@code JsonMapper}: a result type only the
 * application's module can write and read is stored and replayed, from the application's own mapper (either Spring
 * Boot) and from the one Spring Boot 4 makes with the application's module beans.
 */
class JsonMapperCodecTest {

    /** A type Jackson cannot build by itself: no creator, no setters. */
    static final class Money {
        private final long cents;

        Money(long cents) {
            this.cents = cents;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Money m && m.cents == cents;
        }

        @Override
        public int hashCode() {
            return Objects.hash(cents);
        }
    }

    static class Pricing {
        private final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "json-mapper:price")
        public Money price(@IdempotencyKey String sku) {
            runs.incrementAndGet();
            return new Money(1250);
        }

        int runs() {
            return runs.get();
        }
    }

    static JacksonModule moneyModule() {
        return new SimpleModule("money")
                .addSerializer(Money.class, new ValueSerializer<>() {
                    @Override
                    public void serialize(Money value, JsonGenerator out, SerializationContext context) {
                        out.writeNumber(value.cents);
                    }
                })
                .addDeserializer(Money.class, new ValueDeserializer<>() {
                    @Override
                    public Money deserialize(JsonParser in, DeserializationContext context) {
                        return new Money(in.getLongValue());
                    }
                });
    }

    /** An application that makes its own mapper, with its module. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class OwnMapperApp {
        @Bean
        JsonMapper jsonMapper() {
            return JsonMapper.builder().addModule(moneyModule()).build();
        }

        @Bean
        Pricing pricing() {
            return new Pricing();
        }
    }

    /** An application that gives Spring Boot its module; Boot 4 makes the mapper with it. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ModuleBeanApp {
        @Bean
        JacksonModule money() {
            return moneyModule();
        }

        @Bean
        Pricing pricing() {
            return new Pricing();
        }
    }

    @Test
    void theApplicationsOwnMappersModuleStoresAndReplaysItsType() {
        assertStoredAndReplayed(OwnMapperApp.class);
    }

    @Test
    void springBoot4sMapperWithTheApplicationsModuleBeanStoresAndReplaysItsType() {
        assumeTrue(SpringBootVersion.getVersion().startsWith("4."), "Spring Boot 3.5 makes a Jackson 2 mapper");
        assertStoredAndReplayed(ModuleBeanApp.class);
    }

    private static void assertStoredAndReplayed(Class<?> app) {
        // The start-up check plans the method: a json codec without the module refuses Money there, and the context
        // does not start. The first call encodes the result with it; decoding is ApplicationModulesTest's (codec).
        try (ConfigurableApplicationContext context = Applications.start(app)) {
            Pricing pricing = context.getBean(Pricing.class);
            assertEquals(new Money(1250), pricing.price("lamp"));
            assertEquals(new Money(1250), pricing.price("lamp"));
            assertEquals(1, pricing.runs());
        }
    }
}
