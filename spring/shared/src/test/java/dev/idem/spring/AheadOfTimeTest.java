package dev.idem.spring;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.hint.ExecutableHint;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

import java.io.Serializable;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ahead-of-time processing of an application with the starter, as a native image build does it: the hints name
 * what the engine reads by reflection for each {@code @Idempotent} bean method, and the context made from the
 * generated code (compiled and run on this JVM) advises the bean and replays its calls.
 */
public class AheadOfTimeTest {

    /** The key: its fields are what the key is derived from. */
    public record Quote(String sku, Quantity quantity) {
    }

    /** Reached only through a field of {@link Quote}. */
    public record Quantity(int units) {
    }

    /** The result, stored by the java codec. */
    public record Priced(String sku, long cents, List<Line> lines) implements Serializable {
    }

    /** Reached only through a type argument of a field of {@link Priced}. */
    public record Line(String what, long cents) implements Serializable {
    }

    public static class OutOfStockException extends Exception {
        public OutOfStockException(String message) {
            super(message);
        }
    }

    public static class Pricing {
        private final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "pricing:quote")
        public Priced price(@IdempotencyKey Quote quote) throws OutOfStockException {
            runs.incrementAndGet();
            long cents = 250L * quote.quantity().units();
            return new Priced(quote.sku(), cents, List.of(new Line(quote.sku(), cents)));
        }

        public int runs() {
            return runs.get();
        }
    }

    /** A bean of Idem's neighbours, with nothing to hint. */
    public static class Clock {
        public long now() {
            return 0;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class PricingApp {
        @Bean
        public Pricing pricing() {
            return new Pricing();
        }

        @Bean
        public Clock clock() {
            return new Clock();
        }
    }

    @Test
    void theHintsNameTheMethodAndWhatItsArgumentsResultAndFailuresAreMadeOf() throws Exception {
        TestGenerationContext generation = new TestGenerationContext(PricingApp.class);
        process(generation);
        RuntimeHints hints = generation.getRuntimeHints();

        TypeHint pricing = hints.reflection().getTypeHint(Pricing.class);
        assertNotNull(pricing, "the bean's class");
        Set<String> methods = pricing.methods().map(ExecutableHint::getName).collect(Collectors.toSet());
        assertEquals(Set.of("price"), methods, "its @Idempotent method, for the engine to plan from");
        for (Class<?> madeOf : List.of(Quote.class, Quantity.class, Priced.class, Line.class)) {
            TypeHint hint = hints.reflection().getTypeHint(madeOf);
            assertNotNull(hint, madeOf.getSimpleName() + " is read by reflection");
            assertTrue(hint.getMemberCategories().contains(MemberCategory.DECLARED_FIELDS), madeOf + ": fields");
            assertTrue(hint.getMemberCategories().contains(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS),
                    madeOf + ": constructors");
        }
        Set<TypeReference> serialized = hints.serialization().javaSerializationHints()
                .map(hint -> hint.getType()).collect(Collectors.toSet());
        assertTrue(serialized.containsAll(List.of(TypeReference.of(Priced.class), TypeReference.of(Line.class),
                TypeReference.of(OutOfStockException.class))), "the result and the declared failure: " + serialized);
        assertTrue(!serialized.contains(TypeReference.of(Quote.class)), "the key is not serializable, nor hinted so");
        TypeHint clock = hints.reflection().getTypeHint(Clock.class); // Spring's own hint for a bean, if any
        assertTrue(clock == null || !clock.getMemberCategories().contains(MemberCategory.DECLARED_FIELDS),
                "nothing of Idem's for a bean with no @Idempotent method: " + clock);
        assertTrue(hints.resources().resourcePatternHints().flatMap(h -> h.getIncludes().stream())
                        .anyMatch(p -> p.getPattern().equals(SpringBootGeneration.RESOURCE)),
                "the starter's version resource, which the version check reads at start");
    }

    @Test
    @CompileWithForkedClassLoader
    void theContextMadeFromTheGeneratedCodeAdvisesTheBeanAndReplays() throws Exception {
        TestGenerationContext generation = new TestGenerationContext(PricingApp.class);
        ClassName initializer = process(generation);
        TestCompiler.forSystem().with(generation).compile(compiled -> {
            @SuppressWarnings("unchecked")
            ApplicationContextInitializer<GenericApplicationContext> initialize =
                    compiled.getInstance(ApplicationContextInitializer.class, initializer.reflectionName());
            try (GenericApplicationContext context = new GenericApplicationContext()) {
                initialize.initialize(context);
                context.refresh();
                Pricing pricing = context.getBean(Pricing.class);
                assertTrue(AopUtils.isAopProxy(pricing), "advised through the proxy");
                try {
                    Priced first = pricing.price(new Quote("lamp", new Quantity(2)));
                    Priced again = pricing.price(new Quote("lamp", new Quantity(2)));
                    assertEquals(first, again);
                } catch (OutOfStockException e) {
                    throw new AssertionError(e);
                }
                assertEquals(1, pricing.runs(), "the second call was a replay");
            }
        });
    }

    /** Processes the application ahead of time into {@code generation}; returns the initializer's class name. */
    private static ClassName process(TestGenerationContext generation) {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.register(PricingApp.class);
            ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
            generation.writeGeneratedContent();
            return initializer;
        }
    }
}
