package dev.idem.store.redis;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.DurationCases;
import dev.idem.store.DurationGrammar;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code idem.redis.timeout} takes and refuses the strings every reader of a duration does ({@link DurationCases}). */
class RedisStoreProviderDurationTest {

    @ParameterizedTest
    @MethodSource("dev.idem.core.DurationCases#accepted")
    void theTimeoutTakesAnAcceptedText(String text, Duration meant) {
        assertEquals(meant, RedisStoreProvider.timeout(text));
    }

    @ParameterizedTest
    @MethodSource("dev.idem.core.DurationCases#refused")
    void theTimeoutRefusesARefusedTextNamingThePropertyAndTheAcceptedForms(String text) {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> RedisStoreProvider.timeout(text));
        DurationCases.assertRefusal(text, e.getMessage());
        assertEquals("idem.redis.timeout = \"" + text + "\": "
                + assertThrows(IllegalArgumentException.class, () -> DurationGrammar.parse(text)).getMessage(),
                e.getMessage());
    }
}
