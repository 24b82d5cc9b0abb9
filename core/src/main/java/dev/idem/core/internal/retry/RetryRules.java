package dev.idem.core.internal.retry;

import dev.idem.IdempotencyException;
import dev.idem.core.RetryAfter;
import dev.idem.core.RetryClassifier;
import dev.idem.core.RetryPolicy;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The engine's answers to "may this failed attempt be retried?" and "how long did it ask us to wait?": the
 * registered {@link RetryClassifier}s and {@link RetryAfter} extractors in registration order, then the built-in
 * ones. One per engine; immutable.
 */
public final class RetryRules {
    private static final System.Logger LOG = System.getLogger(RetryRules.class.getName());

    private final RetryClassifier[] classifiers;
    private final RetryAfter[] retryAfters;

    public RetryRules(List<RetryClassifier> registered, List<RetryAfter> registeredRetryAfters) {
        List<RetryClassifier> all = new ArrayList<>(registered);
        all.add(new HttpStatusRetryClassifier());
        this.classifiers = all.toArray(new RetryClassifier[0]);
        List<RetryAfter> extractors = new ArrayList<>(registeredRetryAfters);
        extractors.add(new RetryAfterHeaders());
        this.retryAfters = extractors.toArray(new RetryAfter[0]);
    }

    /**
     * Whether {@code failure}, which is not the execution's own (an Error, an interrupt: the caller checks), may
     * be retried under {@code policy}: never Idem's own exceptions nor those of {@code noRetryFor}; those of
     * {@code policy.on()} when it lists any; else what the first decided classifier says.
     */
    public boolean isRetryable(RetryPolicy policy, List<Class<? extends Throwable>> noRetryFor, Throwable failure) {
        if (failure instanceof IdempotencyException || isAny(noRetryFor, failure)) {
            return false;
        }
        if (!policy.on().isEmpty()) {
            return isAny(policy.on(), failure);
        }
        for (RetryClassifier classifier : classifiers) {
            RetryClassifier.Verdict verdict;
            try {
                verdict = classifier.classify(failure);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "retry classifier " + classifier + " threw on " + failure.getClass().getName()
                        + "; taken as undecided", e);
                continue;
            }
            if (verdict == RetryClassifier.Verdict.RETRYABLE) {
                return true;
            }
            if (verdict == RetryClassifier.Verdict.NOT_RETRYABLE) {
                return false;
            }
        }
        return false;
    }

    /** The pause {@code failure} asks for, from the first extractor that finds one, or null. */
    public Duration retryAfter(Throwable failure, Instant now) {
        for (RetryAfter extractor : retryAfters) {
            try {
                Optional<Duration> pause = extractor.find(failure, now);
                if (pause != null && pause.isPresent() && !pause.get().isNegative()) {
                    return pause.get();
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Retry-After extractor " + extractor + " threw on "
                        + failure.getClass().getName() + "; taken as no pause", e);
            }
        }
        return null;
    }

    private static boolean isAny(List<Class<? extends Throwable>> types, Throwable failure) {
        for (Class<? extends Throwable> type : types) {
            if (type.isInstance(failure)) {
                return true;
            }
        }
        return false;
    }
}
