package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.OnStoreError;
import dev.idem.store.DurationGrammar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SettingsTest {

    @ParameterizedTest
    @CsvSource({"250ms, PT0.25S", "10s, PT10S", "5m, PT5M", "1h, PT1H", "1d, PT24H", "PT5M, PT5M", "P1D, PT24H",
        "' 30s ', PT30S"})
    void durationsAcceptTheShortFormsAndIso(String text, String iso) {
        assertEquals(Duration.parse(iso), DurationGrammar.parse(text));
    }

    @ParameterizedTest
    @CsvSource({"5x", "5", "m", "-5s", "5 m", "PT-5M", "1.5h"})
    void otherDurationsAreRefusedWithTheAcceptedForms(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DurationGrammar.parse(text));
        assertTrue(e.getMessage().contains("PT5M"), e.getMessage());
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        IdemSettings defaults = IdemSettings.ofDefaults();
        assertEquals("default", defaults.namespace());
        assertEquals("memory", defaults.defaultStore());
        assertEquals(OnStoreError.FAIL_CLOSED, defaults.onStoreError());
        IdempotencyPolicy policy = IdempotencyPolicy.ofDefaults();
        assertEquals(Duration.ofHours(1), policy.ttl());
        assertEquals(Duration.ofSeconds(30), policy.lease());
        assertEquals(Duration.ofSeconds(10), policy.waitTimeout());
        assertEquals(Duration.ZERO, policy.window());
    }

    @Test
    void propertiesUseTheDocumentedKeysAndStoreKeysPassThrough() {
        IdemSettings s = IdemSettings.fromProperties(Map.of("idem.namespace", "prod", "idem.store", "memory",
                "idem.onStoreError", "fail-open", "idem.redis.uri", "redis://127.0.0.1:6379"));
        assertEquals("prod", s.namespace());
        assertEquals(OnStoreError.FAIL_OPEN, s.onStoreError());
        assertEquals("redis://127.0.0.1:6379", s.properties().get("idem.redis.uri"));
    }

    @Test
    void systemPropertiesOverrideIdemPropertiesOnTheClassPath() {
        // src/test/resources/idem.properties sets namespace=from-file and store=memory.
        assertEquals("from-file", IdemSettings.fromEnvironment().namespace());
        System.setProperty("idem.namespace", "from-system");
        try {
            assertEquals("from-system", IdemSettings.fromEnvironment().namespace());
        } finally {
            System.clearProperty("idem.namespace");
        }
    }

    @Test
    void aBuilderRejectsABadValueWithTheValueInTheMessage() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdempotencyPolicy.custom().operation("Jobs#run").ttl("forever"));
        assertEquals("Jobs#run: @Idempotent(ttl = \"forever\") is not a duration; write 250ms, 10s, 5m, 1h, 1d or"
                + " ISO-8601 such as PT5M", e.getMessage());
        IdempotencyPolicy base = IdempotencyPolicy.custom().scope("a").ttl("2h").build();
        assertEquals(Duration.ofHours(2), IdempotencyPolicy.from(base).window("1h").build().ttl());
    }
}
