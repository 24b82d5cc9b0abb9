package dev.idem.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Tells, in Spring Boot's start-up failure report, which Idem starter the application's Spring Boot needs. */
final class IncompatibleSpringBootFailureAnalyzer extends AbstractFailureAnalyzer<IncompatibleSpringBootException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, IncompatibleSpringBootException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
