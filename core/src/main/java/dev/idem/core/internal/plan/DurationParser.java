package dev.idem.core.internal.plan;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations of {@code @Idempotent}: {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 1d}, ISO-8601. */
public final class DurationParser {
    private static final Pattern SHORT = Pattern.compile("(\\d{1,15})(ms|s|m|h|d)");

    private DurationParser() {
    }

    /**
     * The duration {@code text} denotes.
     *
     * @throws IllegalArgumentException with a message that shows the accepted forms
     */
    public static Duration parse(String text) {
        Duration parsed = parseUnchecked(text);
        try {
            parsed.toMillis(); // every duration is used in milliseconds somewhere; one that overflows them is refused
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("\"" + text + "\" is too long a duration (more than "
                    + Long.MAX_VALUE + " ms)");
        }
        return parsed;
    }

    private static Duration parseUnchecked(String text) {
        String trimmed = text.trim();
        Matcher m = SHORT.matcher(trimmed);
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            try {
                return shortForm(amount, m.group(2));
            } catch (ArithmeticException e) { // 15 digits of days overflow Duration's seconds
                throw new IllegalArgumentException("\"" + text + "\" is too long a duration", e);
            }
        }
        if (trimmed.startsWith("P") || trimmed.startsWith("p")) {
            try {
                Duration parsed = Duration.parse(trimmed);
                if (!parsed.isNegative()) {
                    return parsed;
                }
            } catch (DateTimeParseException ignored) {
                // falls through to the message below, which says what is accepted
            }
        }
        throw new IllegalArgumentException("\"" + text + "\" is not a duration; write 250ms, 10s, 5m, 1h, 1d"
                + " or ISO-8601 such as PT5M");
    }

    private static Duration shortForm(long amount, String unit) {
        switch (unit) {
            case "ms":
                return Duration.ofMillis(amount);
            case "s":
                return Duration.ofSeconds(amount);
            case "m":
                return Duration.ofMinutes(amount);
            case "h":
                return Duration.ofHours(amount);
            default:
                return Duration.ofDays(amount);
        }
    }
}
