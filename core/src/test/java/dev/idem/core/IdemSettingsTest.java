package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.OnStoreError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README, Configuration: {@code idem.namespace}, {@code idem.store}, {@code idem.onStoreError} and
 * {@code idem.<store>.*}; an unknown {@code idem.} key or a bad value stops the engine with a message naming both.
 */
class IdemSettingsTest {

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        IdemSettings s = IdemSettings.ofDefaults();
        assertEquals("default", s.namespace());
        assertEquals("memory", s.defaultStore());
        assertEquals(OnStoreError.FAIL_CLOSED, s.onStoreError());
        assertEquals(3, s.completionAttempts());
        assertEquals(Duration.ofMillis(50), s.completionBackoff());
        assertEquals(Duration.ofSeconds(1), s.waitRecheck());
        assertEquals(Map.of(), s.stores());
        assertEquals(Map.of(), s.properties());
        assertEquals(List.of(), s.listeners());
        assertEquals(List.of(), s.canonicalizers());
        assertEquals(Clock.systemUTC().getZone(), s.clock().getZone());
    }

    @Test
    void aBuilderFromSettingsKeepsEverySettingAndAddsToTheLists() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
        IdempotencyListener first = event -> { };
        IdempotencyListener second = event -> { };
        Clock clock = Clock.fixed(java.time.Instant.EPOCH, java.time.ZoneOffset.UTC);
        IdemSettings base = IdemSettings.custom().namespace("prod").defaultStore("shared").defaultCodec("java")
                .onStoreError(OnStoreError.FAIL_OPEN).clock(clock).store("shared", store)
                .property("idem.jdbc.table", "t").listener(first).completionRetry(5, Duration.ofMillis(7))
                .waitRecheck(Duration.ofMillis(300)).build();
        IdemSettings copy = IdemSettings.from(base).listener(second).build();
        assertEquals("prod", copy.namespace());
        assertEquals("shared", copy.defaultStore());
        assertEquals("java", copy.defaultCodec());
        assertEquals(OnStoreError.FAIL_OPEN, copy.onStoreError());
        assertSame(clock, copy.clock());
        assertEquals(Map.of("shared", store), copy.stores());
        assertEquals(Map.of("idem.jdbc.table", "t"), copy.properties());
        assertEquals(List.of(first, second), copy.listeners());
        assertEquals(5, copy.completionAttempts());
        assertEquals(Duration.ofMillis(7), copy.completionBackoff());
        assertEquals(Duration.ofMillis(300), copy.waitRecheck());
        assertEquals(List.of(first), base.listeners(), "the base is not changed");
        dev.idem.codec.ResultCodecProvider codec = new dev.idem.core.internal.codec.JavaCodecProvider();
        IdemSettings withCodec = IdemSettings.custom().codec(codec).build();
        assertEquals(List.of(codec), IdemSettings.from(withCodec).build().codecs());
    }

    @Test
    void valuesAreTrimmedAndStoreKeysPassThroughWithTheirPrefix() {
        IdemSettings s = IdemSettings.fromProperties(Map.of("idem.namespace", " prod ", "idem.store", " jdbc ",
                "idem.jdbc.url", " jdbc:h2:mem ", "idem.redis.pool.size", "4"));
        assertEquals("prod", s.namespace());
        assertEquals("jdbc", s.defaultStore());
        assertEquals(Map.of("idem.jdbc.url", "jdbc:h2:mem", "idem.redis.pool.size", "4"), s.properties());
    }

    @ParameterizedTest
    @ValueSource(strings = {"fail-open", "FAIL_OPEN", "Fail-Open", " fail_open "})
    void failOpenIsAcceptedInEitherSpelling(String value) {
        assertEquals(OnStoreError.FAIL_OPEN, IdemSettings.fromProperties(Map.of("idem.onStoreError", value))
                .onStoreError());
    }

    @ParameterizedTest
    @ValueSource(strings = {"fail-closed", "FAIL_CLOSED", "Fail_Closed"})
    void failClosedIsAcceptedInEitherSpelling(String value) {
        assertEquals(OnStoreError.FAIL_CLOSED, IdemSettings.fromProperties(Map.of("idem.onStoreError", value))
                .onStoreError());
    }

    @Test
    void waitRecheckIsADurationAndAZeroOrUnreadableOneIsRefusedNamingTheKey() {
        assertEquals(Duration.ofMillis(250), IdemSettings.fromProperties(Map.of("idem.waitRecheck", " 250ms "))
                .waitRecheck());
        IdempotencyConfigurationException unreadable = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of("idem.waitRecheck", "5x")));
        assertTrue(unreadable.getMessage().startsWith("idem.waitRecheck = \"5x\": "), unreadable.getMessage());
        IdempotencyConfigurationException zero = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of("idem.waitRecheck", "0s")));
        assertEquals("idem.waitRecheck must be positive: PT0S", zero.getMessage());
    }

    @Test
    void aBadOnStoreErrorNamesTheKeyTheValueAndTheChoices() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of("idem.onStoreError", "open")));
        assertEquals("idem.onStoreError = \"open\" is not one of fail-closed, fail-open", e.getMessage());
    }

    /**
     * {@link IdemSettings#KEYS} is what the engine reads: each of its keys, set to a value other than its default,
     * changes the settings (and none is kept as a store's property), so the list names no key nobody reads.
     */
    @Test
    void everyKeyOfTheListChangesTheSettings() {
        Map<String, String> values = Map.of(IdemSettings.NAMESPACE, "prod", IdemSettings.STORE, "jdbc",
                IdemSettings.CODEC, "java", IdemSettings.ON_STORE_ERROR, "fail-open",
                IdemSettings.WAIT_RECHECK, "3s");
        assertEquals(new TreeSet<>(values.keySet()), new TreeSet<>(IdemSettings.KEYS),
                "a value for every key of IdemSettings.KEYS");
        List<Object> defaults = observed(IdemSettings.ofDefaults());
        for (String key : IdemSettings.KEYS) {
            IdemSettings s = IdemSettings.fromProperties(Map.of(key, values.get(key)));
            assertTrue(!observed(s).equals(defaults) && s.properties().isEmpty(), key + " changed nothing");
        }
    }

    private static List<Object> observed(IdemSettings s) {
        return List.of(s.namespace(), s.defaultStore(), s.defaultCodec(), s.onStoreError(), s.waitRecheck());
    }

    @ParameterizedTest
    @ValueSource(strings = {"idem.namespce", "idem.", "idem.store2", "namespace", "other.key.x", "IDEM.namespace"})
    void anUnknownKeyIsRefusedNamingItAndTheKnownKeys(String key) {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.fromProperties(Map.of(key, "v")));
        assertEquals("unknown configuration key " + key + " = \"v\"; known keys are idem.namespace, idem.store,"
                + " idem.codec, idem.onStoreError, idem.waitRecheck and idem.<store>.* for a store's own settings",
                e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"prod", "a", "eu-west_1.b", "0123456789012345678901234567890123456789012345678901234567890123"})
    void aNamespaceIsOneTo64LettersDigitsDotsUnderscoresOrDashes(String namespace) {
        assertEquals(namespace, IdemSettings.custom().namespace(namespace).build().namespace());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "prod eu", "prod:eu", "ümlaut", "a/b",
        "01234567890123456789012345678901234567890123456789012345678901234"})
    void anyOtherNamespaceIsRefused(String namespace) {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.custom().namespace(namespace));
        assertEquals("idem.namespace = \"" + namespace + "\" must be 1-64 letters, digits, '.', '_' or '-'",
                e.getMessage());
    }

    @Test
    void aNullNamespaceOrStoreNameIsRefused() {
        assertThrows(IdempotencyConfigurationException.class, () -> IdemSettings.custom().namespace(null));
        assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.custom().store("bad name", new InMemoryIdempotencyStore()));
        assertThrows(NullPointerException.class, () -> IdemSettings.custom().store("memory", null));
    }

    @Test
    void anEmptyDefaultStoreIsRefused() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.custom().defaultStore("  "));
        assertEquals("idem.store = \"  \" is empty", e.getMessage());
        assertEquals("redis", IdemSettings.custom().defaultStore(" redis ").build().defaultStore());
    }

    @Test
    void completionRetryNeedsOneAttemptAndNoNegativePause() {
        IdemSettings s = IdemSettings.custom().completionRetry(1, Duration.ZERO).build();
        assertEquals(1, s.completionAttempts());
        assertEquals(Duration.ZERO, s.completionBackoff());
        IdempotencyConfigurationException attempts = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.custom().completionRetry(0, Duration.ZERO));
        assertEquals("completion attempts must be at least 1: 0", attempts.getMessage());
        IdempotencyConfigurationException pause = assertThrows(IdempotencyConfigurationException.class,
                () -> IdemSettings.custom().completionRetry(2, Duration.ofMillis(-1)));
        assertEquals("completion backoff must not be negative: PT-0.001S", pause.getMessage());
    }

    @Test
    void theSettingsAreImmutableCopiesOfTheBuilder() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
        IdempotencyListener listener = event -> { };
        Clock clock = Clock.systemDefaultZone();
        IdemSettings.Builder b = IdemSettings.custom().store("main", store).listener(listener).clock(clock)
                .property("idem.main.x", "1").onStoreError(OnStoreError.FAIL_OPEN);
        IdemSettings s = b.build();
        b.listener(event -> { }).property("idem.main.y", "2");
        assertEquals(List.of(listener), s.listeners());
        assertEquals(Map.of("idem.main.x", "1"), s.properties());
        assertSame(store, s.stores().get("main"));
        assertSame(clock, s.clock());
        assertEquals(OnStoreError.FAIL_OPEN, s.onStoreError());
        assertThrows(UnsupportedOperationException.class, () -> s.listeners().add(listener));
        assertThrows(UnsupportedOperationException.class, () -> s.properties().put("idem.main.z", "3"));
    }

    @Test
    void overridesComeBeforeSystemPropertiesWhichComeBeforeTheFile() {
        // src/test/resources/idem.properties sets namespace=from-file and store=memory.
        assertEquals("from-file", IdemSettings.fromEnvironment().namespace());
        System.setProperty("idem.namespace", "from-system");
        System.setProperty("unrelated.namespace", "ignored");
        try {
            assertEquals("from-system", IdemSettings.fromEnvironment().namespace());
            Map<String, String> overrides = new LinkedHashMap<>();
            overrides.put("idem.namespace", "from-agent");
            overrides.put("idem.onStoreError", "fail-open");
            IdemSettings s = IdemSettings.fromEnvironment(overrides);
            assertEquals("from-agent", s.namespace());
            assertEquals(OnStoreError.FAIL_OPEN, s.onStoreError());
            assertEquals("memory", s.defaultStore());
        } finally {
            System.clearProperty("idem.namespace");
            System.clearProperty("unrelated.namespace");
        }
        List<String> unknown = new ArrayList<>();
        try {
            IdemSettings.fromEnvironment(Map.of("idem.colour", "blue"));
        } catch (IdempotencyConfigurationException e) {
            unknown.add(e.getMessage());
        }
        assertEquals(1, unknown.size());
        assertTrue(unknown.get(0).contains("idem.colour"), unknown.get(0));
    }
}
