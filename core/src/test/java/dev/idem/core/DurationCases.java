package dev.idem.core;

import dev.idem.store.DurationGrammar;
import org.junit.jupiter.params.provider.Arguments;

import java.time.Duration;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The strings every reader of a duration (the annotations' attributes, the engine's settings, each store provider's
 * properties) must take or refuse alike, since all of them follow {@link DurationGrammar}. Shared through core's
 * test jar, so each module's test feeds its own readers the same list. Zero is left out: whether it is allowed is
 * each attribute's own rule.
 */
public final class DurationCases {
    private DurationCases() {
    }

    /** {@return the accepted texts, each with the duration it denotes} */
    public static Stream<Arguments> accepted() {
        return Stream.of(
                Arguments.of("1ms", Duration.ofMillis(1)),
                Arguments.of("250ms", Duration.ofMillis(250)),
                Arguments.of("10s", Duration.ofSeconds(10)),
                Arguments.of("5m", Duration.ofMinutes(5)),
                Arguments.of("1h", Duration.ofHours(1)),
                Arguments.of("36h", Duration.ofHours(36)),
                Arguments.of("1d", Duration.ofDays(1)),
                Arguments.of("999999999999999ms", Duration.ofMillis(999_999_999_999_999L)),
                Arguments.of(" 30s ", Duration.ofSeconds(30)),
                Arguments.of("PT5M", Duration.ofMinutes(5)),
                Arguments.of("pt5m", Duration.ofMinutes(5)),
                Arguments.of("P1DT2H", Duration.ofHours(26)),
                Arguments.of("PT0.25S", Duration.ofMillis(250)));
    }

    /** {@return texts that are not durations of the grammar} */
    public static Stream<String> refused() {
        return Stream.of("", " ", "5", "m", "ms", "1.5s", "1 s", "5 m", "1S", "1M", "1H", "1D", "+5s", "-5s", "1w",
                "1y", "5mss", "1sec", "forever", "5 minutes", "P", "PT", "PT-5M", "P-1D", "-PT5M", "T5M",
                "1000000000000000ms", "999999999999999d", "PT2562047788016H");
    }

    /**
     * Asserts that {@code message}, a reader's refusal of {@code text}, quotes the text and either names the accepted
     * forms or says the duration is too long.
     */
    public static void assertRefusal(String text, String message) {
        assertTrue(message.contains("\"" + text + "\""), message);
        assertTrue(message.contains(DurationGrammar.ACCEPTED_FORMS) || message.contains("too long a duration"),
                message);
    }
}
