package dev.idem.core;

import jakarta.annotation.Nonnull;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Finds the pause a failure asks for before the next attempt: an HTTP {@code Retry-After}, or the like. Register
 * one with {@link IdemSettings.Builder#retryAfter(RetryAfter)} or in
 * {@code META-INF/services/dev.idem.core.RetryAfter}.
 *
 * <p>The engine asks the registered extractors in registration order, then the built-in one; the first that finds
 * a pause counts. The built-in one reads, by reflection, on the exception and each of its causes: a
 * {@code getRetryAfter()} or {@code retryAfter()} method (a {@link Duration}; a number of seconds; an
 * {@link Instant}; a header value; or an {@link Optional} of one of these), else a {@code Retry-After} header of
 * its headers ({@code getResponseHeaders()}, {@code responseHeaders()}, {@code getHeaders()}, {@code headers()},
 * also on its {@code getResponse()}/{@code response()}), as a map or as a headers object with {@code firstValue},
 * {@code getFirst}, {@code values}, {@code get} or {@code getHeaderString}. A header value is a number of seconds
 * or an HTTP date (RFC 1123).
 *
 * <p>The pause found is honoured as the least pause before the next attempt, cut to
 * {@link RetryPolicy#maxRetryAfter()}. Called on the thread that ran the failed attempt; it must be quick and must
 * not throw (an exception counts as "no pause found" and is logged).
 */
@FunctionalInterface
public interface RetryAfter {

    /**
     * The pause {@code failure} asks for.
     *
     * @param failure what the failed attempt threw
     * @param now     the engine's clock, to turn an absolute date into a pause
     * @return the pause, never negative; empty when the failure names none
     */
    Optional<Duration> find(@Nonnull Throwable failure, @Nonnull Instant now);
}
