package dev.idem.store;

import dev.idem.IdempotencyConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one duration grammar (docs/configuration.md, "Durations are 250ms, 10s, 5m, 1h, 1d or ISO-8601"). */
class DurationGrammarTest {

    @ParameterizedTest
    @CsvSource({
        "0ms, 0",
        "1ms, 1",
        "250ms, 250",
        "1s, 1000",
        "90s, 90000",
        "1m, 60000",
        "5m, 300000",
        "1h, 3600000",
        "36h, 129600000",
        "1d, 86400000",
        "7d, 604800000",
        "999999999999999ms, 999999999999999",
    })
    void theShortFormsAreMillisSecondsMinutesHoursAndDays(String text, long millis) {
        assertEquals(Duration.ofMillis(millis), DurationGrammar.parse(text));
    }

    @ParameterizedTest
    @CsvSource({"PT5M, PT5M", "pt5m, PT5M", "P1DT2H, PT26H", "PT0.25S, PT0.25S", "PT0S, PT0S", "' PT1H ', PT1H"})
    void isoFormsAreAcceptedInEitherCase(String text, String expected) {
        assertEquals(Duration.parse(expected), DurationGrammar.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "s", "ms", "1", "1.5s", "1 s", "1sec", "1S", "1M", "+5s", "-5s", "1w", "1y",
        "1000000000000000ms", "P", "PT", "PT-1S", "P-1D", "-PT5M", "5mss", "T5M", "Q5M"})
    void anythingElseIsRefusedWithTheAcceptedFormsInTheMessage(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DurationGrammar.parse(text));
        assertEquals("\"" + text + "\" is not a duration; write 250ms, 10s, 5m, 1h, 1d or ISO-8601 such as PT5M",
                e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"999999999999999d", "PT2562047788016H", "106751991168d"})
    void aDurationBeyondLongMillisecondsIsRefusedAsTooLong(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DurationGrammar.parse(text));
        assertTrue(e.getMessage().startsWith("\"" + text + "\" is too long a duration"), e.getMessage());
    }

    @Test
    void aNegativeIsoDurationIsRefusedButZeroIsNot() {
        assertEquals(Duration.ZERO, DurationGrammar.parse("PT0S"));
        assertEquals(Duration.ZERO, DurationGrammar.parse("0s"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DurationGrammar.parse("PT-0.001S"));
        assertTrue(e.getMessage().startsWith("\"PT-0.001S\""), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"5m, 300000", "' 2s ', 2000", "PT3S, 3000"})
    void aPropertyTakesWhatTheGrammarTakes(String text, long millis) {
        assertEquals(Duration.ofMillis(millis), DurationGrammar.parseProperty("idem.x.timeout", text, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"5x", "", "-5s", "999999999999999d"})
    void aPropertysRefusalNamesThePropertyAndTheTextThenTheGrammarsReason(String text) {
        String grammar = assertThrows(IllegalArgumentException.class, () -> DurationGrammar.parse(text)).getMessage();
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> DurationGrammar.parseProperty("idem.x.timeout", text, null));
        assertEquals("idem.x.timeout = \"" + text + "\": " + grammar, e.getMessage());
        assertTrue(e.getCause() instanceof IllegalArgumentException, String.valueOf(e.getCause()));
    }

    @Test
    void aPropertysRefusalEndsWithWhatElseItAccepts() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> DurationGrammar.parseProperty("idem.x.interval", "5x", "off"));
        assertEquals("idem.x.interval = \"5x\": \"5x\" is not a duration; write 250ms, 10s, 5m, 1h, 1d or"
                + " ISO-8601 such as PT5M, or off", e.getMessage());
    }
}
