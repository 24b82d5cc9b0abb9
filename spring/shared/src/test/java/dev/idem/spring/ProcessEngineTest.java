package dev.idem.spring;

import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.WeavingCheck;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bean whose methods are woven or instrumented runs them on the process's engine; while its context runs, that is
 * the context's engine, configured by the application's properties, and the one it replaced comes back when the
 * context closes. Calls are made as the agent's advice makes them, through {@link Idem#advise}.
 */
class ProcessEngineTest {

    /** Stands for a class the agent instrumented: Idem's own check counts it as attached. */
    static class InstrumentedShipping {
        @Idempotent(scope = "shipping:label")
        public String label(@IdempotencyKey String order, String address) {
            return order + " to " + address;
        }
    }

    /** A proxied bean only: nothing is woven, so the process's engine is left alone. */
    static class ProxiedShipping {
        @Idempotent(scope = "shipping:quote")
        public String quote(String order) {
            return order;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class InstrumentedApp {
        @Bean
        InstrumentedShipping shipping() {
            return new InstrumentedShipping();
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ProxiedApp {
        @Bean
        ProxiedShipping shipping() {
            return new ProxiedShipping();
        }
    }

    @Test
    void whileTheContextRunsInstrumentedMethodsRunOnItsEngineAndTheProcessGetsItsOwnBackAfter() throws Throwable {
        WeavingCheck.markInstrumented(InstrumentedShipping.class.getName());
        IdemEngine before = Idem.engine();
        Method label = InstrumentedShipping.class.getMethod("label", String.class, String.class);
        AtomicInteger runs = new AtomicInteger();
        try (ConfigurableApplicationContext context = Applications.start(InstrumentedApp.class,
                "idem.namespace=lent")) {
            IdemEngine contexts = context.getBean(IdemEngine.class);
            assertSame(contexts, Idem.engine(), "the process runs instrumented methods on the context's engine");

            Object first = Idem.advise(label).call(new Object[] {"o-1", "Main St"}, () -> {
                runs.incrementAndGet();
                return "o-1 to Main St";
            });
            Object again = Idem.advise(label).call(new Object[] {"o-1", "Main St"}, () -> {
                runs.incrementAndGet();
                return "o-1 to Main St";
            });
            assertEquals(first, again);
            assertEquals(1, runs.get(), "the second call replayed");
            IdempotencyConflictException conflict = assertThrows(IdempotencyConflictException.class,
                    () -> Idem.advise(label).call(new Object[] {"o-1", "Elm St"}, () -> "o-1 to Elm St"));
            assertTrue(conflict.getMessage().contains("idem:lent:shipping:label"),
                    "the key is in the context's namespace, from its properties: " + conflict.getMessage());
        }
        assertSame(before, Idem.engine(), "the process's own engine is back once the context closed");
    }

    @Test
    void aContextWithNothingWovenLeavesTheProcesssEngineAlone() {
        IdemEngine before = Idem.engine();
        try (ConfigurableApplicationContext context = Applications.start(ProxiedApp.class)) {
            assertNotSame(context.getBean(IdemEngine.class), Idem.engine());
            assertSame(before, Idem.engine());
        }
        assertSame(before, Idem.engine());
    }
}
