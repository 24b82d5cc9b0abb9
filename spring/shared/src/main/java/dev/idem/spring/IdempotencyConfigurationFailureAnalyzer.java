package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Shows an Idem configuration problem that stopped the context (a bad attribute, an unprotected method, an unknown
 * or bad {@code idem.} key) in Spring Boot's start-up failure report, as its description, instead of a stack trace.
 * The exception's message already names the bean, the method and the attribute, or the key and the value.
 */
final class IdempotencyConfigurationFailureAnalyzer
        extends AbstractFailureAnalyzer<IdempotencyConfigurationException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, IdempotencyConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), "Fix the @Idempotent attribute or the idem.* property named"
                + " above (docs/configuration.md lists them; docs/spring-boot.md says what the starter checks at"
                + " start-up).", cause);
    }
}
