package dev.idem.core.internal.retry;

import dev.idem.IdempotencyConflictException;
import dev.idem.core.RetryAfter;
import dev.idem.core.RetryClassifier;
import dev.idem.core.RetryClassifier.Verdict;
import dev.idem.core.RetryPolicy;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether a failed attempt is retried, and how long it asked to wait: the order in which {@link RetryRules} asks
 * the policy, the registered classifiers and extractors, and the built-in ones.
 */
class RetryRulesTest {
    private static final Instant NOW = Instant.parse("2026-03-01T08:00:00Z");
    private static final RetryPolicy ANY = RetryPolicy.custom().maxAttempts(3).build();
    private static final RetryClassifier UNDECIDED = failure -> Verdict.UNDECIDED;
    private static final RetryClassifier RETRYABLE = failure -> Verdict.RETRYABLE;
    private static final RetryClassifier NOT_RETRYABLE = failure -> Verdict.NOT_RETRYABLE;
    private static final RetryClassifier THROWING = failure -> {
        throw new IllegalStateException("a broken classifier");
    };

    /** Carries an HTTP status the built-in classifier reads. */
    public static class Status extends RuntimeException {
        private final int status;

        public Status(int status) {
            this.status = status;
        }

        public int statusCode() {
            return status;
        }
    }

    private static RetryRules classifiers(RetryClassifier... registered) {
        return new RetryRules(List.of(registered), List.of());
    }

    @Test
    void idemsOwnExceptionsAndThoseOfNoRetryForAreNeverRetriedWhateverElseSaysSo() {
        RetryPolicy onEverything = RetryPolicy.custom().maxAttempts(3).on(RuntimeException.class).build();
        RetryRules rules = classifiers(RETRYABLE);
        assertFalse(rules.isRetryable(onEverything, List.of(), new IdempotencyConflictException("conflict")));
        assertFalse(rules.isRetryable(onEverything, List.of(UncheckedIOException.class),
                new UncheckedIOException(new IOException("reset"))), "noRetryFor wins over on");
        assertTrue(rules.isRetryable(onEverything, List.of(UncheckedIOException.class),
                new IllegalStateException("other")), "a type noRetryFor does not list");
    }

    @Test
    void aPolicyListingTypesRetriesThoseAndNoOthersWithoutAskingTheClassifiers() {
        RetryPolicy onIo = RetryPolicy.custom().maxAttempts(3).on(UncheckedIOException.class).build();
        assertTrue(classifiers(NOT_RETRYABLE).isRetryable(onIo, List.of(),
                new UncheckedIOException(new IOException("reset"))));
        assertFalse(classifiers(RETRYABLE).isRetryable(onIo, List.of(), new Status(503)),
                "neither a classifier nor the built-in status rule is asked");
    }

    @Test
    void theFirstClassifierThatDecidesIsFollowedAndABrokenOneCountsAsUndecided() {
        RuntimeException failure = new Status(503);
        assertTrue(classifiers(UNDECIDED, THROWING, RETRYABLE, NOT_RETRYABLE).isRetryable(ANY, List.of(),
                new IllegalStateException("no status")));
        assertFalse(classifiers(NOT_RETRYABLE).isRetryable(ANY, List.of(), failure),
                "a registered classifier comes before the built-in 503 rule");
        assertTrue(classifiers(UNDECIDED).isRetryable(ANY, List.of(), failure), "then the built-in rule decides");
        assertFalse(classifiers(UNDECIDED).isRetryable(ANY, List.of(), new Status(404)));
        assertFalse(classifiers(UNDECIDED, THROWING).isRetryable(ANY, List.of(), new IllegalStateException("x")),
                "nobody decided: not retried");
    }

    @Test
    void theFirstExtractorThatFindsAPauseGivesItAndNegativeOrBrokenOnesAreSkipped() {
        RetryAfter none = (failure, now) -> Optional.empty();
        RetryAfter nullAnswer = (failure, now) -> null;
        RetryAfter negative = (failure, now) -> Optional.of(Duration.ofSeconds(-5));
        RetryAfter broken = (failure, now) -> {
            throw new IllegalStateException("a broken extractor");
        };
        RetryAfter sevenSeconds = (failure, now) -> Optional.of(Duration.ofSeconds(7));
        RetryAfter nineSeconds = (failure, now) -> Optional.of(Duration.ofSeconds(9));
        RetryRules rules = new RetryRules(List.of(),
                List.of(none, nullAnswer, negative, broken, sevenSeconds, nineSeconds));
        assertEquals(Duration.ofSeconds(7), rules.retryAfter(new IllegalStateException("x"), NOW));

        RetryRules builtInOnly = new RetryRules(List.of(), List.of(none));
        assertEquals(Duration.ofSeconds(30), builtInOnly.retryAfter(new HttpShapesTest.RateLimited(30), NOW),
                "the built-in extractor comes last");
        assertNull(builtInOnly.retryAfter(new IllegalStateException("no pause"), NOW));
    }
}
