package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Retries the body of an {@link Idempotent} method inside its one claim: {@code @Idempotent(retry = @Retry(...))}.
 *
 * <p>Every attempt runs under the same key and the same fencing token, and the claim's lease is renewed across the
 * attempts and the pauses between them, so a retry can never become a second operation: other callers of the key
 * (in this JVM or another process) wait for the final outcome instead of starting their own attempts.
 *
 * <p>Between attempts Idem waits with exponential back-off and full jitter: after the {@code n}-th failed attempt
 * the pause is drawn uniformly from {@code [0, min(cap, base * 2^(n-1))]}. A {@code Retry-After} the failure
 * carries (seconds or an HTTP date, found by the engine's {@code RetryAfter} extractors) is honoured as the least
 * pause, cut to {@link #maxRetryAfter()}. Only retryable failures are retried: those of a type listed in
 * {@link #on()}, or, when it is empty, those the engine's {@code RetryClassifier}s accept (by default HTTP-status
 * carrying exceptions with status 429, 502, 503, 504 or 529). An {@link Error}, an interrupt, an exception listed
 * in {@link Idempotent#noRetryFor()} and Idem's own exceptions are never retried.
 *
 * <p>Validated when the method is first planned; a bad value is an {@link IdempotencyConfigurationException}
 * naming the method and the attribute.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface Retry {

    /** {@return how many times the body may run in all, the first attempt included; 1 means no retry} */
    int maxAttempts() default 3;

    /** {@return the back-off's base: the largest pause after the first failed attempt} */
    String base() default "200ms";

    /** {@return the largest pause the back-off ever draws from; at least {@link #base()}} */
    String cap() default "10s";

    /**
     * {@return the exception types (with their subtypes) that are retried; empty means the engine's
     * {@code RetryClassifier}s decide}
     */
    Class<? extends Throwable>[] on() default {};

    /** {@return the longest {@code Retry-After} honoured; a longer one is cut to it; empty means {@link #cap()}} */
    String maxRetryAfter() default "";
}
