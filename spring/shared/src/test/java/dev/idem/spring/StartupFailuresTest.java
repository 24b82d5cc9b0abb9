package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.core.IdemEngine;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.PriorityOrdered;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.util.List;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What stops the context at start-up, and what the message names. */
class StartupFailuresTest {

    static class BadTtl {
        @Idempotent(scope = "bad", ttl = "5 parsecs")
        public String run(String in) {
            return in;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class BadTtlApp {
        @Bean
        BadTtl badTtl() {
            return new BadTtl();
        }
    }

    @Test
    void aBadAttributeStopsTheContextNamingTheBeanTheMethodAndTheAttribute() {
        IdempotencyConfigurationException e = refused(BadTtlApp.class);
        assertTrue(e.getMessage().contains("bean 'badTtl'"), e.getMessage());
        assertTrue(e.getMessage().contains("BadTtl#run"), e.getMessage());
        assertTrue(e.getMessage().contains("ttl") && e.getMessage().contains("5 parsecs"), e.getMessage());
    }

    @Test
    void springBootsFailureReportShowsTheProblemInsteadOfAStackTrace() {
        Throwable failure = assertThrows(Throwable.class, () -> Applications.start(BadTtlApp.class).close());
        // Spring Boot's own analyzers want the context's bean factory, which this test has none of: skip them.
        List<FailureAnalysis> analyses = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, null, (type, name, notMade) -> {
                }).stream().map(analyzer -> analyzer.analyze(failure)).filter(Objects::nonNull).toList();
        assertEquals(1, analyses.size(), "the analyses of the failure: " + analyses);
        assertTrue(analyses.get(0).getDescription().contains("BadTtl#run")
                && analyses.get(0).getDescription().contains("5 parsecs"), analyses.get(0).getDescription());
        assertTrue(analyses.get(0).getAction().contains("docs/configuration.md"), analyses.get(0).getAction());
    }

    static class FinalMethod {
        @Idempotent(scope = "final")
        public final String run(String in) {
            return in;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class FinalMethodApp {
        @Bean
        FinalMethod finalMethod() {
            return new FinalMethod();
        }
    }

    @Test
    void aFinalMethodThatNoProxyCanAdviseStopsTheContext() {
        IdempotencyConfigurationException e = refused(FinalMethodApp.class);
        assertTrue(e.getMessage().contains("bean 'finalMethod'"), e.getMessage());
        assertTrue(e.getMessage().contains("FinalMethod#run") && e.getMessage().contains("is final"),
                e.getMessage());
    }

    static class Audit {
        @Idempotent(scope = "audit")
        public String record(String entry) {
            return entry;
        }
    }

    /**
     * Needs the audit bean to process others, and comes first among post-processors (before Spring's auto-proxy
     * creator, which is only {@code Ordered}), so Spring makes the audit bean before anything can proxy it.
     */
    static class AuditingPostProcessor implements BeanPostProcessor, PriorityOrdered {
        AuditingPostProcessor(Audit audit) {
        }

        @Override
        public int getOrder() {
            return 0;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class EarlyBeanApp {
        @Bean
        static Audit audit() {
            return new Audit();
        }

        @Bean
        static AuditingPostProcessor auditingPostProcessor(Audit audit) {
            return new AuditingPostProcessor(audit);
        }
    }

    @Test
    void aBeanMadeBeforeTheAdvisorExistedStopsTheContextRatherThanRunUnprotected() {
        IdempotencyConfigurationException e = refused(EarlyBeanApp.class);
        assertTrue(e.getMessage().contains("bean 'audit'") && e.getMessage().contains("Audit#record")
                && e.getMessage().contains("not proxied"), e.getMessage());
    }

    static final class FinalClass {
        @Idempotent(scope = "final-class")
        public String run(String in) {
            return in;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class FinalClassApp {
        @Bean
        FinalClass finalClass() {
            return new FinalClass();
        }
    }

    @Test
    void aFinalClassThatNoClassBasedProxyCanExtendStopsTheContextWithIdemsMessage() {
        IdempotencyConfigurationException e = refused(FinalClassApp.class);
        assertTrue(e.getMessage().contains("bean 'finalClass'"), e.getMessage());
        assertTrue(e.getMessage().contains("FinalClass#run") && e.getMessage().contains("final class"),
                e.getMessage());
    }

    interface Payments {
        @Idempotent(scope = "pay")
        String pay(String id);
    }

    static class CardPayments implements Payments {
        @Override
        public String pay(String id) {
            return id;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class InterfaceAnnotationApp {
        @Bean
        Payments payments() {
            return new CardPayments();
        }
    }

    @Test
    void theAnnotationOnAnInterfaceMethodStopsTheContextSayingWhereItBelongs() {
        IdempotencyConfigurationException e = refused(InterfaceAnnotationApp.class);
        assertTrue(e.getMessage().contains("bean 'payments'"), e.getMessage());
        assertTrue(e.getMessage().contains("CardPayments#pay") && e.getMessage().contains("is not annotated itself"),
                e.getMessage());
    }

    static class BaseJob {
        @Idempotent(scope = "job")
        public String run(String day) {
            return day;
        }
    }

    static class NightlyJob extends BaseJob {
        @Override
        public String run(String day) {
            return "nightly " + day;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class OverrideApp {
        @Bean
        NightlyJob nightlyJob() {
            return new NightlyJob();
        }
    }

    @Test
    void anUnannotatedOverrideOfAnAnnotatedMethodStopsTheContext() {
        IdempotencyConfigurationException e = refused(OverrideApp.class);
        assertTrue(e.getMessage().contains("bean 'nightlyJob'"), e.getMessage());
        assertTrue(e.getMessage().contains("NightlyJob#run") && e.getMessage().contains("is not annotated itself"),
                e.getMessage());
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class EmptyApp {
    }

    @Test
    void anUnknownIdemKeyStopsTheContext() {
        IdempotencyConfigurationException e = refused(EmptyApp.class, "idem.namespase=prod");
        assertTrue(e.getMessage().contains("idem.namespase"), e.getMessage());
    }

    @Test
    void anUnknownStarterKeyStopsTheContext() {
        IdempotencyConfigurationException e = refused(EmptyApp.class, "idem.spring.aspect-ordre=1");
        assertTrue(e.getMessage().contains("idem.spring.aspect-ordre"), e.getMessage());
    }

    @Test
    void aBadAspectOrderStopsTheContextNamingTheKeyAndTheValue() {
        IdempotencyConfigurationException e = refused(EmptyApp.class, "idem.spring.aspect-order=outer");
        assertTrue(e.getMessage().contains("idem.spring.aspect-order") && e.getMessage().contains("outer"),
                e.getMessage());
    }

    @Test
    void theEngineTakesTheApplicationsIdemProperties() {
        try (ConfigurableApplicationContext context = Applications.start(EmptyApp.class, "idem.namespace=staging",
                "idem.spring.aspect-order=5")) {
            assertEquals("staging", context.getBean(IdemEngine.class).settings().namespace());
            assertEquals(5, context.getBean(IdempotentMethodAdvisor.class).getOrder());
        }
    }

    private static IdempotencyConfigurationException refused(Class<?> app, String... properties) {
        return Applications.refused(IdempotencyConfigurationException.class, app, properties);
    }
}
