package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scope names one operation: who may share one, and why a reloaded class is not "another operation" while an
 * overload or a second programmatic operation is.
 */
class ScopeOwnershipTest {
    private final EngineFixture fx = new EngineFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    static class Overloads {
        @Idempotent
        String make(String topic) {
            return topic;
        }

        @Idempotent
        Integer make(int day) {
            return day;
        }
    }

    @Test
    void overloadsShareTheDefaultScopeSoTheirResultsMustHaveOneType() {
        List<java.lang.reflect.Method> overloads = java.util.Arrays.stream(Overloads.class.getDeclaredMethods())
                .filter(m -> m.getName().equals("make")).toList();
        fx.engine.validate(overloads.get(0));

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(overloads.get(1)));
        assertTrue(e.getMessage().contains("already the scope of " + Overloads.class.getName() + "#make"),
                e.getMessage());
    }

    static class ThreeUsers {
        @Idempotent(scope = "three")
        String first(String a) {
            return a;
        }

        @Idempotent(scope = "three")
        String second(String a) {
            return a;
        }

        @Idempotent(scope = "three")
        Integer third(String a) {
            return 3;
        }
    }

    @Test
    void aScopeSharedByTwoOperationsOfOneTypeStillRefusesAThirdOfAnother() {
        fx.engine.validate(EngineFixture.find(ThreeUsers.class, "first"));
        fx.engine.validate(EngineFixture.find(ThreeUsers.class, "second"));
        fx.engine.validate(EngineFixture.find(ThreeUsers.class, "second")); // planned once, asked twice

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(EngineFixture.find(ThreeUsers.class, "third")));
        assertTrue(e.getMessage().contains("java.lang.String, not java.lang.Integer"), e.getMessage());
    }

    @Test
    void twoProgrammaticOperationsOfOneScopeMustShareTheResultType() {
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("articles").scope("lab:articles").build();
        fx.engine.operation(policy, String.class);
        fx.engine.operation(policy, String.class); // the same again is fine

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.operation(policy, Integer.class));
        assertTrue(e.getMessage().contains("scope = \"lab:articles\""), e.getMessage());
    }

    @Test
    void aProgrammaticScopeCannotHavePlaceholdersEvenAtItsStart() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.operation(IdempotencyPolicy.custom().operation("orders").scope("{tenant}:orders")
                        .build(), String.class));
        assertTrue(e.getMessage().contains("placeholders"), e.getMessage());
    }

    static final class NotSerializable {
    }

    @Test
    void aProgrammaticOperationsResultTypeIsCheckedWhenItIsBuilt() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.operation(IdempotencyPolicy.custom().operation("odd").scope("lab:odd").build(),
                        NotSerializable.class));
        assertTrue(e.getMessage().contains(NotSerializable.class.getName()), e.getMessage());
    }

    @Test
    void aLiteralScopeThatMakesKeysLongerThanEveryStoreAcceptsIsRefusedWhenPlanned() {
        String scope = "s".repeat(dev.idem.store.IdempotencyStore.MAX_KEY_LENGTH);
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.operation(IdempotencyPolicy.custom().operation("long").scope(scope).build(),
                        String.class));
        assertTrue(e.getMessage().contains("longer than the 2048"), e.getMessage());
    }

    record Fine(String value) implements Serializable {
    }

    @Test
    void aProgrammaticOperationRunsOncePerValues() throws Exception {
        IdempotentOperation<Fine> op = fx.engine.operation(
                IdempotencyPolicy.custom().operation("fine").scope("lab:fine").build(), Fine.class);
        int[] runs = {0};

        Fine first = op.call(() -> new Fine("run " + ++runs[0]), "a", 1);
        Fine again = op.call(() -> new Fine("run " + ++runs[0]), "a", 1);

        assertEquals(first, again);
        assertEquals(1, runs[0]);
    }
}
