package dev.idem.tests;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.ConfigurationCheck;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.WeavingCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bad {@code @Idempotent} and an annotated interface method, in each weaving mode. Under load-time weaving the
 * class is checked as it initialises, before any call, and the problem logged; under compile-time weaving the
 * build's {@code idem:check} goal reports it (maven-plugin's CheckGoalIT), by the same {@link ConfigurationCheck}
 * this test runs. In both, a method the engine refuses never runs, and an annotated interface method is not
 * applied to its implementation, which {@link WeavingCheck} says with the method to annotate instead.
 */
class DeclarationChecksTest {
    /** Held strongly: java.util.logging keeps loggers only weakly. */
    private static final Logger IDEM_LOG = Logger.getLogger("dev.idem");
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final StreamHandler capture = new StreamHandler(log, new SimpleFormatter());
    private final boolean loadTime = "load-time".equals(System.getProperty("weaving.mode"));
    private IdemEngine engine;
    private IdemEngine previous;

    @BeforeEach
    void captureTheLogAndInstallAnEngine() {
        // Asserted here instead of printed: the build stays quiet.
        IDEM_LOG.addHandler(capture);
        IDEM_LOG.setUseParentHandlers(false);
        engine = IdemEngine.create(IdemSettings.custom().namespace("declarations").build());
        previous = Idem.install(engine);
    }

    @AfterEach
    void restore() {
        IDEM_LOG.removeHandler(capture);
        IDEM_LOG.setUseParentHandlers(true);
        Idem.install(previous);
        engine.close();
    }

    /** The errors logged on dev.idem since the test began, one message each. */
    private List<String> errors() {
        capture.flush();
        return log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("SEVERE: "))
                .map(l -> l.substring("SEVERE: ".length())).toList();
    }

    @Test
    void aBadDeclarationIsReportedBeforeAnyCallAndNeverRuns() {
        BadDeclarations.BadTtl bad = new BadDeclarations.BadTtl(); // loads and initialises the class, calls nothing

        String problem = BadDeclarations.BadTtl.class.getName() + "#generate: @Idempotent(ttl = \"5 min\") is not a"
                + " duration";
        if (loadTime) {
            assertEquals(1, errors().size(), errors().toString());
            assertTrue(errors().get(0).startsWith(problem), errors().toString());
        } else {
            assertEquals(List.of(), errors(), "compile-time weaving reports it in the build, not at run time");
            List<String> found = ConfigurationCheck.problems(engine, BadDeclarations.BadTtl.class);
            assertEquals(1, found.size(), found.toString());
            assertTrue(found.get(0).startsWith(problem), found.toString());
        }
        int before = BadDeclarations.RUNS.get();
        assertThrows(IdempotencyConfigurationException.class, () -> bad.generate("rust"));
        assertEquals(before, BadDeclarations.RUNS.get(), "never run unprotected");
    }

    @Test
    void anAnnotatedInterfaceMethodIsRefusedWithTheMethodToAnnotateAndNotAppliedToItsImplementation() {
        BadDeclarations.Orders orders = new BadDeclarations.DatabaseOrders();

        String implementation = BadDeclarations.DatabaseOrders.class.getName() + "#create(String) implements "
                + BadDeclarations.Orders.class.getName() + "#create(String), which is annotated @Idempotent, but is"
                + " not annotated itself";
        if (loadTime) {
            assertEquals(1, errors().size(), errors().toString());
            assertTrue(errors().get(0).startsWith(implementation), errors().toString());
        } else {
            assertEquals(List.of(), errors());
        }
        IdempotencyConfigurationException onInterface = assertThrows(IdempotencyConfigurationException.class,
                () -> WeavingCheck.requireWoven(BadDeclarations.Orders.class));
        assertTrue(onInterface.getMessage().contains(BadDeclarations.Orders.class.getName() + "#create(String) is"
                + " annotated @Idempotent but is abstract (declared by an interface)"), onInterface.getMessage());
        assertFalse(onInterface.getMessage().contains("Weave them"), onInterface.getMessage());
        IdempotencyConfigurationException onImplementation = assertThrows(IdempotencyConfigurationException.class,
                () -> WeavingCheck.requireWoven(BadDeclarations.DatabaseOrders.class));
        assertTrue(onImplementation.getMessage().startsWith(implementation), onImplementation.getMessage());

        int before = BadDeclarations.RUNS.get();
        orders.create("order-1");
        orders.create("order-1");
        assertEquals(before + 2, BadDeclarations.RUNS.get(), "not applied: the same answer in every mode");
    }
}
