package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.Normalize;
import dev.idem.WindowAlignment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SEMANTICS.md section 6: every bad attribute is refused with the method's name and the attribute. */
class ConfigurationErrorTest {
    private final EngineFixture fx = new EngineFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    record Order(String id, String site) implements java.io.Serializable {
    }

    static class NotSerializable {
    }

    @SuppressWarnings("unused")
    static class Bad {
        @Idempotent(ttl = "5x")
        String badTtl(String a) {
            return a;
        }

        @Idempotent(window = "soon")
        String badWindow(String a) {
            return a;
        }

        @Idempotent(lease = "0s")
        String zeroLease(String a) {
            return a;
        }

        @Idempotent(waitTimeout = "10 seconds")
        String badWait(String a) {
            return a;
        }

        @Idempotent(failureTtl = "-5s")
        String badFailureTtl(String a) {
            return a;
        }

        @Idempotent(zone = "Mars/Olympus")
        String badZone(String a) {
            return a;
        }

        @Idempotent(window = "1h", ttl = "30m")
        String ttlBelowWindow(String a) {
            return a;
        }

        @Idempotent(windowAlignment = WindowAlignment.FIXED)
        String fixedWithoutWindow(String a) {
            return a;
        }

        @Idempotent(key = "nope")
        String unknownKey(String order) {
            return order;
        }

        @Idempotent(key = "order.nope")
        String unknownPath(Order order) {
            return order.id();
        }

        @Idempotent(key = "order")
        String keyTwice(@IdempotencyKey Order order) {
            return order.id();
        }

        @Idempotent(store = "nope")
        String unknownStore(String a) {
            return a;
        }

        @Idempotent(scope = "{tenant}:orders")
        String unknownPlaceholder(String a) {
            return a;
        }

        @Idempotent
        Stream<String> streamResult(String a) {
            return Stream.of(a);
        }

        @Idempotent
        Iterator<String> iteratorResult(String a) {
            return null;
        }

        @Idempotent
        InputStream inputStreamResult(String a) {
            return null;
        }

        @Idempotent
        NotSerializable notSerializable(String a) {
            return null;
        }

        @Idempotent
        String callbackInKey(String a, Consumer<String> progress) {
            return a;
        }

        @Idempotent
        String normalizedNumber(@IdempotencyKey(normalize = Normalize.TRIM) int n) {
            return "";
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "badTtl             | ttl = \"5x\"",
        "badWindow          | window = \"soon\"",
        "zeroLease          | lease = \"PT0S\"",
        "badWait            | waitTimeout = \"10 seconds\"",
        "badFailureTtl      | failureTtl = \"-5s\"",
        "badZone            | zone = \"Mars/Olympus\"",
        "ttlBelowWindow     | ttl = \"PT30M\"",
        "fixedWithoutWindow | windowAlignment = \"FIXED\"",
        "unknownKey         | key = \"nope\"",
        "unknownPath        | key = \"order.nope\"",
        "keyTwice           | key = [order]",
        "unknownStore       | store = \"nope\"",
        "unknownPlaceholder | scope = \"{tenant}:orders\"",
        "streamResult       | java.util.stream.Stream",
        "iteratorResult     | java.util.Iterator",
        "inputStreamResult  | java.io.InputStream",
        "notSerializable    | Serializable",
        "callbackInKey      | 'progress'",
        "normalizedNumber   | normalize = [TRIM]",
    })
    void aBadAttributeIsReportedWithTheMethodAndTheAttribute(String method, String attribute) {
        Method m = EngineFixture.find(Bad.class, method);

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(m));

        assertTrue(e.getMessage().contains(Bad.class.getName() + "#" + method), e.getMessage());
        assertTrue(e.getMessage().contains(attribute), e.getMessage());
    }

    @Test
    void aScopePlaceholderNamingNoParameterListsTheParametersThatExist() {
        Method m = EngineFixture.find(Bad.class, "unknownPlaceholder");

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(m));

        assertTrue(e.getMessage().contains("placeholder {tenant} names no parameter; the parameters are [a]"),
                e.getMessage());
    }

    @Test
    void aBadMethodIsRefusedAtEveryCallAndNeverRunsUnprotected() {
        Method m = EngineFixture.find(Bad.class, "badTtl");
        int[] runs = new int[1];
        for (int i = 0; i < 3; i++) {
            assertThrows(IdempotencyConfigurationException.class, () -> fx.engine.invoke(m, new Object[] {"a"}, () -> {
                runs[0]++;
                return "ran";
            }));
        }
        assertEquals(0, runs[0]);
    }

    @Test
    void unknownConfigurationKeysAndValuesAreNamed() {
        IdempotencyConfigurationException unknown = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of("idem.namespce", "prod")));
        assertTrue(unknown.getMessage().contains("idem.namespce"), unknown.getMessage());

        IdempotencyConfigurationException badMode = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of("idem.onStoreError", "maybe")));
        assertTrue(badMode.getMessage().contains("idem.onStoreError = \"maybe\""), badMode.getMessage());

        IdempotencyConfigurationException badNamespace = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of("idem.namespace", "prod eu")));
        assertTrue(badNamespace.getMessage().contains("idem.namespace"), badNamespace.getMessage());
    }

    @Test
    void anUnknownDefaultStoreIsNamedWithItsKey() {
        try (IdemEngine engine = IdemEngine.create(IdemSettings.fromProperties(Map.of("idem.store", "redis")))) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> engine.validate(Fine.class.getDeclaredMethod("toString")));
            assertTrue(e.getMessage().contains("not annotated"), e.getMessage());
            Method plain = EngineFixture.find(Fine.class, "fine");
            IdempotencyConfigurationException store = assertThrows(IdempotencyConfigurationException.class,
                    () -> engine.validate(plain));
            assertTrue(store.getMessage().contains("idem.store = \"redis\""), store.getMessage());
            assertTrue(store.getMessage().contains("memory"), "lists the known stores: " + store.getMessage());
        }
    }

    static class SharedScopes {
        @Idempotent(scope = "shared")
        String text(String a) {
            return a;
        }

        @Idempotent(scope = "shared")
        Integer number(String a) {
            return 1;
        }

        @Idempotent(scope = "shared")
        String sameTypeElsewhere(String a) {
            return a;
        }
    }

    @Test
    void twoOperationsMayShareAScopeOnlyIfTheirResultsHaveOneType() {
        fx.engine.validate(EngineFixture.find(SharedScopes.class, "text"));
        fx.engine.validate(EngineFixture.find(SharedScopes.class, "sameTypeElsewhere"));

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(EngineFixture.find(SharedScopes.class, "number")));
        assertTrue(e.getMessage().contains(SharedScopes.class.getName() + "#number"), e.getMessage());
        assertTrue(e.getMessage().contains("scope = \"shared\""), e.getMessage());
        assertTrue(e.getMessage().contains(SharedScopes.class.getName() + "#text"), e.getMessage());
    }

    static class Fine {
        @Idempotent
        String fine(String a) {
            return a;
        }

        @Override
        public String toString() {
            return "Fine";
        }
    }
}
