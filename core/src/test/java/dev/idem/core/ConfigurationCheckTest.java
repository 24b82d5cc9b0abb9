package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the build goal and the class-load checks report, found without calling any method and without a store. */
class ConfigurationCheckTest {
    private final IdemEngine engine = IdemEngine.create(IdemSettings.custom().defaultStore("nowhere").build());

    @AfterEach
    void close() {
        engine.close();
    }

    static class Service {
        static final AtomicInteger RUNS = new AtomicInteger();

        @Idempotent(scope = "check:ttl", ttl = "5 min")
        public String badTtl(String prompt) {
            RUNS.incrementAndGet();
            return prompt;
        }

        @Idempotent(scope = "check:key", key = "orderId")
        public String unknownKey(String order) {
            return order;
        }

        @Idempotent(scope = "check:stream")
        public InputStream unreplayable(String name) {
            return InputStream.nullInputStream();
        }

        @Idempotent(scope = "check:good", ttl = "5m")
        public String good(String prompt) {
            return prompt;
        }
    }

    interface Repository {
        @Idempotent(scope = "check:save")
        String save(String order);
    }

    @Test
    void everyProblemIsReportedInTheEnginesWordsAndAGoodMethodIsNot() {
        List<String> problems = ConfigurationCheck.problems(engine, Service.class, Repository.class);

        assertEquals(4, problems.size(), problems.toString());
        String all = String.join("\n", problems);
        assertTrue(all.contains(Service.class.getName() + "#badTtl") && all.contains("5 min"), all);
        assertTrue(all.contains(Service.class.getName() + "#unknownKey: @Idempotent(key = \"orderId\") names no"
                + " parameter"), all);
        assertTrue(all.contains(Service.class.getName() + "#unreplayable") && all.contains("InputStream"), all);
        assertTrue(all.contains(Repository.class.getName() + "#save(String) is annotated @Idempotent but is"
                + " abstract"), all);
        assertTrue(!all.contains("#good"), all);
        assertEquals(0, Service.RUNS.get(), "checked, never called");
    }

    @Test
    void theStoreIsNeitherCreatedNorReached() {
        // "nowhere" names no store: planning for a call would fail on it, checking does not look.
        assertEquals(List.of(), ConfigurationCheck.problems(engine, Good.class));
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> engine.validate(methodOf(Good.class)));
        assertTrue(e.getMessage().contains("nowhere"), e.getMessage());
    }

    @Test
    void requireThrowsEveryProblemAtOnce() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> ConfigurationCheck.require(engine, Service.class));
        assertEquals(3, e.getMessage().lines().count(), e.getMessage());
    }

    @Test
    void theCheckedMethodIsStillRefusedAtItsCall() throws Throwable {
        IdemEngine previous = Idem.install(engine);
        try {
            assertThrows(IdempotencyConfigurationException.class, () -> engine.invoke(
                    Service.class.getMethod("badTtl", String.class), new Object[] {"x"}, () -> {
                        Service.RUNS.incrementAndGet();
                        return "ran";
                    }));
            assertEquals(0, Service.RUNS.get());
        } finally {
            Idem.install(previous);
        }
    }

    static class Good {
        @Idempotent(scope = "check:only-good")
        public String run(String prompt) {
            return prompt;
        }
    }

    private static java.lang.reflect.Method methodOf(Class<?> type) {
        return type.getDeclaredMethods()[0];
    }

}
