package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.StartupCheck;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** This module is compiled by javac, so its annotated methods are exactly the unwoven case the check exists for. */
class WeavingCheckTest {

    static class Unwoven {
        @Idempotent(scope = "unwoven")
        public String generate(String prompt) {
            return prompt;
        }

        public String notAnnotated(String prompt) {
            return prompt;
        }
    }

    @Test
    void anAnnotatedMethodCompiledWithoutWeavingIsReported() throws Exception {
        List<Method> unwoven = WeavingCheck.unwovenMethods(Unwoven.class);
        assertEquals(List.of(Unwoven.class.getDeclaredMethod("generate", String.class)), unwoven);

        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> WeavingCheck.requireWoven(Unwoven.class));
        assertTrue(e.getMessage().contains(Unwoven.class.getName() + "#generate(String)"), e.getMessage());
        assertTrue(e.getMessage().contains("aspectjweaver"), "says how to weave: " + e.getMessage());
    }

    interface Repository {
        @Idempotent(scope = "repository:save")
        String save(String order);
    }

    static class RepositoryImpl implements Repository {
        @Override
        public String save(String order) {
            return order;
        }
    }

    @Test
    void anInterfaceMethodIsReportedWithAdviceToAnnotateTheImplementationNotToWeave() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> WeavingCheck.requireWoven(Repository.class));
        assertTrue(e.getMessage().contains(Repository.class.getName() + "#save(String) is annotated @Idempotent but"
                + " is abstract (declared by an interface)"), e.getMessage());
        assertTrue(e.getMessage().contains("Put @Idempotent on each implementing method"), e.getMessage());
        assertTrue(!e.getMessage().contains("Weave them"), "nothing to weave on an interface: " + e.getMessage());
        assertEquals(List.of(), WeavingCheck.unwovenMethods(Repository.class));
    }

    @Test
    void anImplementationOfAnAnnotatedInterfaceMethodIsReportedAsUnprotected() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> WeavingCheck.requireWoven(RepositoryImpl.class));
        assertTrue(e.getMessage().contains(RepositoryImpl.class.getName() + "#save(String) implements "
                + Repository.class.getName() + "#save(String), which is annotated @Idempotent, but is not annotated"
                + " itself"), e.getMessage());
    }

    @Test
    void aPackageScanFindsUnwovenMethodsOnTheClassPath() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> WeavingCheck.requireWovenPackages(getClass().getClassLoader(), "dev.idem.core"));
        assertTrue(e.getMessage().contains(Unwoven.class.getName() + "#generate"), e.getMessage());
    }

    static class InstrumentedByTheAgent {
        @Idempotent(scope = "instrumented")
        public String generate(String prompt) {
            return prompt;
        }
    }

    @Test
    void theAnnotationsStartupCheckHandsOverToThisCheckWhenTheEngineIsThere() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> StartupCheck.requireWoven(Unwoven.class, Repository.class));
        assertTrue(e.getMessage().startsWith("1 @Idempotent method(s) are not woven"), e.getMessage());
        assertTrue(e.getMessage().contains(Unwoven.class.getName() + "#generate(String)"), e.getMessage());
        assertTrue(e.getMessage().contains(Repository.class.getName() + "#save(String) is annotated @Idempotent but"),
                "misplaced annotations too: " + e.getMessage());

        WeavingCheck.markInstrumented(InstrumentedByTheAgent.class.getName()); // as the agent does for its classes
        StartupCheck.requireWoven(InstrumentedByTheAgent.class);
    }

    @Test
    void aClassMarkedInstrumentedCountsAsWovenAndOnlyThatClass() throws NoSuchMethodException {
        class Instrumented {
            @dev.idem.Idempotent(scope = "marked")
            String run(String s) {
                return s;
            }
        }
        class NotInstrumented {
            @dev.idem.Idempotent(scope = "unmarked")
            String run(String s) {
                return s;
            }
        }
        WeavingCheck.markInstrumented(Instrumented.class.getName());

        assertTrue(WeavingCheck.isWoven(Instrumented.class.getDeclaredMethod("run", String.class)));
        assertFalse(WeavingCheck.isWoven(NotInstrumented.class.getDeclaredMethod("run", String.class)));
    }
}
