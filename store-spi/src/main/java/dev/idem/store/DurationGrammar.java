package dev.idem.store;

import dev.idem.IdempotencyConfigurationException;
import jakarta.annotation.Nullable;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * The one way Idem reads a duration from text, alike for the annotations' attributes, the engine's settings and every
 * store's properties: a whole number followed by {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} (lower case,
 * no space, at most 15 digits: {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 1d}), or ISO-8601 in either
 * case ({@code PT5M}, {@code p1dt2h}); surrounding blanks are ignored. Negative durations and durations longer than
 * {@link Long#MAX_VALUE} milliseconds are refused. Zero is accepted; whether it is allowed is the caller's rule.
 *
 * <p>Written by hand rather than with a regular expression, since settings and plans are read at start-up, where a
 * first {@link java.util.regex.Pattern} costs class loading the call does not need.
 */
public final class DurationGrammar {
    /** The accepted forms as error messages name them. */
    public static final String ACCEPTED_FORMS = "250ms, 10s, 5m, 1h, 1d or ISO-8601 such as PT5M";

    private static final int MAX_DIGITS = 15;

    private DurationGrammar() {
    }

    /**
     * The duration {@code text} denotes.
     *
     * @param text the text, such as {@code 5m} or {@code PT5M}
     * @return the duration, never negative
     * @throws IllegalArgumentException when {@code text} is not of the grammar, with a message that quotes the text and
     *                                  names the accepted forms (the caller adds which setting or attribute it was)
     * @throws NullPointerException     when {@code text} is null
     */
    public static Duration parse(String text) {
        String trimmed = text.trim();
        try {
            Duration parsed = shortForm(trimmed);
            if (parsed == null) {
                parsed = isoForm(trimmed);
            }
            if (parsed == null) {
                throw new IllegalArgumentException("\"" + text + "\" is not a duration; write " + ACCEPTED_FORMS);
            }
            parsed.toMillis(); // every duration is used in milliseconds somewhere; one that overflows them is refused
            return parsed;
        } catch (ArithmeticException e) { // also 15 digits of days, which overflow Duration's seconds
            throw new IllegalArgumentException("\"" + text + "\" is too long a duration (more than "
                    + Long.MAX_VALUE + " ms)", e);
        }
    }

    /**
     * The duration a configuration property is set to, for a reader of properties (a store's provider): as
     * {@link #parse}, with a refusal that names the property.
     *
     * @param property     the property's full name, such as {@code idem.redis.timeout}
     * @param text         the property's text
     * @param alsoAccepted what else the property takes that the caller reads before calling this, such as
     *                     {@code off}, for the message; null when nothing else
     * @return the duration, never negative
     * @throws IdempotencyConfigurationException when {@code text} is not of the grammar: {@code <property> =
     *                                           "<text>": } then {@link #parse}'s message, then {@code , or
     *                                           <alsoAccepted>} when given
     * @throws NullPointerException              when {@code property} or {@code text} is null
     */
    public static Duration parseProperty(String property, String text, @Nullable String alsoAccepted) {
        Objects.requireNonNull(property, "property");
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new IdempotencyConfigurationException(property + " = \"" + text + "\": " + e.getMessage()
                    + (alsoAccepted == null ? "" : ", or " + alsoAccepted), e);
        }
    }

    /** {@return the short form's duration, or null when {@code text} is not of the short form} */
    private static Duration shortForm(String text) {
        int digits = 0;
        while (digits < text.length() && text.charAt(digits) >= '0' && text.charAt(digits) <= '9') {
            digits++;
        }
        if (digits == 0 || digits > MAX_DIGITS) {
            return null;
        }
        long amount = Long.parseLong(text, 0, digits, 10);
        switch (text.substring(digits)) {
            case "ms":
                return Duration.ofMillis(amount);
            case "s":
                return Duration.ofSeconds(amount);
            case "m":
                return Duration.ofMinutes(amount);
            case "h":
                return Duration.ofHours(amount);
            case "d":
                return Duration.ofDays(amount);
            default:
                return null;
        }
    }

    /** {@return the ISO-8601 duration, or null when {@code text} is not one or is negative} */
    private static Duration isoForm(String text) {
        if (!text.startsWith("P") && !text.startsWith("p")) {
            return null;
        }
        try {
            Duration parsed = Duration.parse(text);
            return parsed.isNegative() ? null : parsed;
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
