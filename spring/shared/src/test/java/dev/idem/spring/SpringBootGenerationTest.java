package dev.idem.spring;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.util.List;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each starter knows the Spring Boot it is built for, and refuses the other one, naming both and what to use. */
class SpringBootGenerationTest {
    private final SpringBootGeneration thisStarter = SpringBootGeneration.ofThisStarter();

    @Test
    void theStarterIsBuiltForTheSpringBootItRunsOnInThisBuild() {
        String running = SpringBootVersion.getVersion();
        assertTrue(running.startsWith(thisStarter.springBoot() + "."), running + " against " + thisStarter);
        assertDoesNotThrow(() -> thisStarter.requireRunning(running));
    }

    @Test
    void theOtherGenerationIsRefusedNamingBothVersionsAndTheStarterToUse() {
        String other = thisStarter.otherSpringBoot() + ".9";
        IncompatibleSpringBootException e = assertThrows(IncompatibleSpringBootException.class,
                () -> thisStarter.requireRunning(other));
        assertTrue(e.getMessage().contains(thisStarter.starter() + " is built for Spring Boot "
                + thisStarter.springBoot() + ".x"), e.getMessage());
        assertTrue(e.getMessage().contains("runs Spring Boot " + other), e.getMessage());
        assertTrue(e.getMessage().contains("use " + thisStarter.otherStarter()), e.getMessage());
    }

    @Test
    void springBootsFailureReportExplainsTheRefusal() {
        IncompatibleSpringBootException refusal = new IncompatibleSpringBootException(thisStarter, "0.1.0");
        Throwable failure = new BeanCreationException("idemAutoConfiguration", "failed", refusal);
        // Spring Boot's own analyzers want the context's bean factory, which this test has none of: skip them.
        List<FailureAnalysis> analyses = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, null, (type, name, notMade) -> {
                }).stream().map(analyzer -> analyzer.analyze(failure))
                .filter(Objects::nonNull).toList();
        assertEquals(1, analyses.size(), "the analyses of the failure: " + analyses);
        assertEquals(refusal.getMessage(), analyses.get(0).getDescription());
        assertTrue(analyses.get(0).getAction().contains("dev.idem:" + thisStarter.otherStarter()),
                analyses.get(0).getAction());
    }
}
