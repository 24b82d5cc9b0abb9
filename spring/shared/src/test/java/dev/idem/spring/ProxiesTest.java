package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.Retry;
import dev.idem.core.WeavingCheck;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How Idem's advice meets the other advice of a bean and the kinds of proxy. */
class ProxiesTest {

    /** Marks the methods the counting advice (inside Idem's) wraps. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface Counted {
    }

    /** Fails its first two attempts, then succeeds. */
    static class FlakyUpstream {
        private final AtomicInteger attempts = new AtomicInteger();

        @Counted
        @Idempotent(scope = "flaky", retry = @Retry(maxAttempts = 3, base = "1ms", cap = "2ms",
                on = IllegalStateException.class))
        public String fetch(String id) {
            if (attempts.incrementAndGet() < 3) {
                throw new IllegalStateException("upstream busy");
            }
            return "fetched " + id;
        }

        public int attempts() {
            return attempts.get();
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RetryApp {
        static final AtomicInteger INNER_ADVICE_RUNS = new AtomicInteger();

        @Bean
        FlakyUpstream upstream() {
            return new FlakyUpstream();
        }

        @Bean
        static DefaultPointcutAdvisor countingAdvice() {
            DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                    AnnotationMatchingPointcut.forMethodAnnotation(Counted.class),
                    (MethodInterceptor) invocation -> {
                        INNER_ADVICE_RUNS.incrementAndGet();
                        return invocation.proceed();
                    });
            advisor.setOrder(Integer.MAX_VALUE); // inside Idem's advice
            return advisor;
        }
    }

    @Test
    void eachRetriedAttemptRunsTheAdviceInsideIdemsAgain() {
        RetryApp.INNER_ADVICE_RUNS.set(0);
        try (ConfigurableApplicationContext context = Applications.start(RetryApp.class)) {
            FlakyUpstream upstream = context.getBean(FlakyUpstream.class);
            assertEquals("fetched a", upstream.fetch("a"));
            assertEquals(3, upstream.attempts(), "attempts of the body");
            assertEquals(3, RetryApp.INNER_ADVICE_RUNS.get(), "runs of the advice inside Idem's, one per attempt");
            assertEquals("fetched a", upstream.fetch("a"));
            assertEquals(3, RetryApp.INNER_ADVICE_RUNS.get(), "a replay runs nothing inside Idem's advice");
        }
    }

    /** Stands for a class the agent instrumented: Idem's own check counts it as attached. */
    static class InstrumentedElsewhere {
        @Idempotent(scope = "elsewhere")
        public String run(String in) {
            return in;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class InstrumentedApp {
        @Bean
        InstrumentedElsewhere instrumented() {
            return new InstrumentedElsewhere();
        }
    }

    @Test
    void aMethodIdemAlreadyReachesByWeavingOrTheAgentIsNotAdvisedAgain() {
        WeavingCheck.markInstrumented(InstrumentedElsewhere.class.getName());
        try (ConfigurableApplicationContext context = Applications.start(InstrumentedApp.class)) {
            assertFalse(AopUtils.isAopProxy(context.getBean(InstrumentedElsewhere.class)),
                    "a bean whose only @Idempotent method is instrumented needs no proxy of Idem's");
        }
    }

    interface Catalogue {
        String find(String sku);
    }

    /** Its @Idempotent method is on no interface, so an interface-based proxy never sees its calls. */
    static class ShopCatalogue implements Catalogue {
        @Override
        public String find(String sku) {
            return sku;
        }

        @Idempotent(scope = "reindex")
        public String reindex(String sku) {
            return sku;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class InterfaceProxyApp {
        @Bean
        ShopCatalogue catalogue() {
            return new ShopCatalogue();
        }
    }

    @Test
    void aMethodOnNoInterfaceOfAnInterfaceBasedProxyStopsTheContext() {
        Throwable thrown = assertThrows(Throwable.class, () -> Applications.start(InterfaceProxyApp.class,
                "spring.aop.proxy-target-class=false").close());
        Throwable cause = thrown;
        while (cause != null && !(cause instanceof IdempotencyConfigurationException)) {
            cause = cause.getCause();
        }
        assertTrue(cause != null, () -> "not refused by Idem: " + thrown);
        assertTrue(cause.getMessage().contains("ShopCatalogue#reindex")
                && cause.getMessage().contains("on no interface"), cause.getMessage());
    }

    interface Quotes {
        String quote(String sku);
    }

    /** Annotated on the implementation, called through its interface. */
    static class ShopQuotes implements Quotes {
        private final AtomicInteger runs = new AtomicInteger();

        @Override
        @Idempotent(scope = "quotes")
        public String quote(String sku) {
            return sku + ":" + runs.incrementAndGet();
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class InterfaceCallApp {
        @Bean
        ShopQuotes quotes() {
            return new ShopQuotes();
        }
    }

    @Test
    void aCallThroughAnInterfaceBasedProxyIsPlannedFromTheImplementationsAnnotation() {
        try (ConfigurableApplicationContext context = Applications.start(InterfaceCallApp.class,
                "spring.aop.proxy-target-class=false")) {
            Quotes quotes = context.getBean(Quotes.class);
            assertTrue(AopUtils.isJdkDynamicProxy(quotes), "an interface-based proxy");
            assertEquals("lamp:1", quotes.quote("lamp"));
            assertEquals("lamp:1", quotes.quote("lamp"), "replayed: the implementation's @Idempotent applies");
        }
    }
}
