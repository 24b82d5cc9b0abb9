package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.DurationCases;
import dev.idem.store.DurationGrammar;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code idem.jdbc.sweepInterval} takes and refuses the strings every reader of a duration does
 * ({@link DurationCases}); its message adds the property's own {@code off}.
 */
class JdbcStoreProviderDurationTest {

    @ParameterizedTest
    @MethodSource("dev.idem.core.DurationCases#accepted")
    void theSweepIntervalTakesAnAcceptedText(String text, Duration meant) {
        assertEquals(meant, JdbcStoreProvider.sweepInterval(text));
    }

    @ParameterizedTest
    @MethodSource("dev.idem.core.DurationCases#refused")
    void theSweepIntervalRefusesARefusedTextNamingThePropertyAndTheAcceptedForms(String text) {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> JdbcStoreProvider.sweepInterval(text));
        DurationCases.assertRefusal(text, e.getMessage());
        String grammar = assertThrows(IllegalArgumentException.class, () -> DurationGrammar.parse(text)).getMessage();
        assertEquals("idem.jdbc.sweepInterval = \"" + text + "\": " + grammar + ", or off", e.getMessage());
    }
}
