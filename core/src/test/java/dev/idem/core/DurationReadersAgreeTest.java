package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.DurationGrammar;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The engine's readers of durations, an annotation's attribute ({@link IdempotencyPolicy#from} hands each attribute's
 * text to the builder's String setter) and a setting ({@code idem.waitRecheck}), take and refuse the same strings as
 * {@link DurationGrammar} itself; the stores' providers run the same {@link DurationCases} in their modules.
 */
class DurationReadersAgreeTest {

    @ParameterizedTest
    @MethodSource("dev.idem.core.DurationCases#accepted")
    void everyReaderTakesAnAcceptedText(String text, Duration meant) {
        assertEquals(meant, DurationGrammar.parse(text));
        assertEquals(meant, IdempotencyPolicy.custom().operation("Jobs#run").ttl(Duration.ofMillis(Long.MAX_VALUE))
                .window(text).build().window());
        assertEquals(meant, IdempotencyPolicy.custom().operation("Jobs#run").ttl(text).build().ttl());
        assertEquals(meant, IdemSettings.fromProperties(Map.of(IdemSettings.WAIT_RECHECK, text)).waitRecheck());
    }

    @ParameterizedTest
    @MethodSource("dev.idem.core.DurationCases#refused")
    void everyReaderRefusesARefusedTextNamingTheAcceptedForms(String text) {
        IllegalArgumentException grammar = assertThrows(IllegalArgumentException.class,
                () -> DurationGrammar.parse(text));
        DurationCases.assertRefusal(text, grammar.getMessage());
        IdempotencyConfigurationException attribute = assertThrows(IdempotencyConfigurationException.class,
                () -> IdempotencyPolicy.custom().operation("Jobs#run").window(text));
        DurationCases.assertRefusal(text, attribute.getMessage());
        assertEquals("Jobs#run: @Idempotent(window = \"" + text + "\") is not a duration; write "
                + DurationGrammar.ACCEPTED_FORMS, attribute.getMessage());
        IdempotencyConfigurationException setting = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of(IdemSettings.WAIT_RECHECK, text)));
        // the settings loader trims every value before reading it
        String trimmed = text.trim();
        assertEquals(IdemSettings.WAIT_RECHECK + " = \"" + trimmed + "\": "
                + assertThrows(IllegalArgumentException.class, () -> DurationGrammar.parse(trimmed)).getMessage(),
                setting.getMessage());
    }
}
