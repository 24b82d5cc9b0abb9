package dev.idem.core.internal.retry;

import dev.idem.core.RetryAfter;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in {@link RetryAfter}: on the failure and each of its causes, a {@code getRetryAfter()} or
 * {@code retryAfter()} method, else a {@code Retry-After} response header, read by reflection (see
 * {@link RetryAfter} for the shapes). A header value is a number of seconds or an HTTP date; a date in the past
 * means no pause, and a value that is neither is ignored.
 */
public final class RetryAfterHeaders implements RetryAfter {
    static final String HEADER = "Retry-After";
    private static final String[] GETTERS = {"getRetryAfter", "retryAfter"};
    private static final String[] HEADERS = {"getResponseHeaders", "responseHeaders", "getHeaders", "headers"};
    private static final String[] HEADER_LOOKUPS = {"firstValue", "getFirst", "values", "get", "getHeaderString",
            "header"};
    private static final String[] RESPONSE = {"getResponse", "response"};

    @Override
    public Optional<Duration> find(Throwable failure, Instant now) {
        for (Throwable t : Causes.of(failure)) {
            Duration pause = asPause(PublicGetters.first(t, GETTERS), now);
            if (pause == null) {
                pause = fromHeaders(t, now, true);
            }
            if (pause != null) {
                return Optional.of(pause);
            }
        }
        return Optional.empty();
    }

    private static Duration fromHeaders(Object source, Instant now, boolean lookAtResponse) {
        // A response object (JAX-RS, OkHttp) answers a header lookup itself; an exception is not asked, as a
        // get(String) of its own could mean anything.
        Duration pause = lookAtResponse ? null : asPause(headerValue(source), now);
        for (int i = 0; pause == null && i < HEADERS.length; i++) {
            Object headers = PublicGetters.call(source, HEADERS[i], null);
            if (headers != PublicGetters.ABSENT && headers != null) {
                pause = asPause(headerValue(headers), now);
            }
        }
        if (pause == null && lookAtResponse) {
            Object response = PublicGetters.first(source, RESPONSE);
            if (response != PublicGetters.ABSENT && response != null) {
                pause = fromHeaders(response, now, false);
            }
        }
        return pause;
    }

    /** The Retry-After entry of a headers map or headers object, or null. */
    private static Object headerValue(Object headers) {
        if (headers instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) headers).entrySet()) {
                if (e.getKey() instanceof String && HEADER.equalsIgnoreCase((String) e.getKey())) {
                    return e.getValue();
                }
            }
            return null;
        }
        for (String lookup : HEADER_LOOKUPS) {
            Object value = PublicGetters.call(headers, lookup, HEADER);
            if (value != PublicGetters.ABSENT && value != null) {
                return value;
            }
        }
        return null;
    }

    /** A pause from what a getter or header gave, or null when it gives none. */
    static Duration asPause(Object value, Instant now) {
        if (value instanceof Optional) {
            value = ((Optional<?>) value).orElse(null);
        }
        if (value instanceof Collection) {
            Collection<?> values = (Collection<?>) value;
            value = values.isEmpty() ? null : values.iterator().next();
        }
        Duration pause = null;
        if (value instanceof Duration) {
            pause = (Duration) value;
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short) {
            pause = Duration.ofSeconds(((Number) value).longValue());
        } else if (value instanceof Instant) {
            pause = until(now, (Instant) value);
        } else if (value instanceof CharSequence) {
            pause = parseHeader(value.toString(), now);
        }
        return pause == null || pause.isNegative() ? null : pause;
    }

    /** A {@code Retry-After} value: delay-seconds, or an HTTP date (RFC 1123), or null. */
    static Duration parseHeader(String text, Instant now) {
        String value = text.trim();
        if (value.isEmpty()) {
            return null;
        }
        if (value.chars().allMatch(Character::isDigit)) {
            return value.length() > 12 ? null : Duration.ofSeconds(Long.parseLong(value));
        }
        try {
            return until(now, ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static Duration until(Instant now, Instant then) {
        return then.isAfter(now) ? Duration.between(now, then) : Duration.ZERO;
    }
}
