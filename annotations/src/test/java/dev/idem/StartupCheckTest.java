package dev.idem;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The start-up check where Idem's engine is absent, as in an application meant for the agent started without it:
 * this module's tests have only the annotations on their class path. With the engine it hands over to the engine's
 * check (core's {@code StartupCheckDelegationTest}, and the agent's tests in a JVM of their own).
 */
class StartupCheckTest {
    static class Orders {
        @Idempotent(scope = "shop:create-order")
        public String create(@IdempotencyKey String requestId, int quantity) {
            return requestId;
        }

        @Idempotent(scope = "shop:cancel-order")
        public void cancel(String orderId) {
        }

        public String unannotated(String orderId) {
            return orderId;
        }
    }

    static class Plain {
        public String unannotated(String orderId) {
            return orderId;
        }
    }

    @Test
    void withoutTheEngineEveryAnnotatedMethodIsNamedWithHowToAttachTheAgent() throws ClassNotFoundException {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("dev.idem.core.WeavingCheck"),
                "this test needs a class path without the engine");

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> StartupCheck.requireWoven(Plain.class, Orders.class));

        assertTrue(e.getMessage().startsWith("2 @Idempotent method(s) would run without protection, because Idem's"
                + " engine is not on the class path: "), e.getMessage());
        assertTrue(e.getMessage().contains(Orders.class.getName() + "#create(String, int)"), e.getMessage());
        assertTrue(e.getMessage().contains(Orders.class.getName() + "#cancel(String)"), e.getMessage());
        assertTrue(e.getMessage().contains("-javaagent:idem-agent.jar"), e.getMessage());
        assertEquals(-1, e.getMessage().indexOf("#unannotated"), e.getMessage());
    }

    @Test
    void classesWithoutAnnotatedMethodsNeedNoEngine() {
        assertDoesNotThrow(() -> StartupCheck.requireWoven(Plain.class));
        assertDoesNotThrow(() -> StartupCheck.requireWoven());
    }
}
