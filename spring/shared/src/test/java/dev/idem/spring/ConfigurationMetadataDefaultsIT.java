package dev.idem.spring;

import dev.idem.OnStoreError;
import dev.idem.core.IdemSettings;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.DurationGrammar;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Every default the packaged metadata shows is the code's own: given as the key's value it changes nothing, and the
 * code accepts it (the in-memory and the jdbc store are made from their defaults, the latter on a real H2 database).
 */
class ConfigurationMetadataDefaultsIT {
    private static Map<String, String> defaults;

    @BeforeAll
    static void read() throws IOException {
        defaults = new TreeMap<>();
        for (ConfigurationMetadataProperty property : PackagedMetadata.ofBuiltStarter().repository()
                .getAllProperties().values()) {
            if (property.getDefaultValue() != null) {
                defaults.put(property.getId(), String.valueOf(property.getDefaultValue()));
            }
        }
        assertFalse(defaults.isEmpty(), "the metadata shows no defaults");
    }

    @Test
    void theEnginesDefaultsAreTheSettingsOfAnEmptyConfiguration() {
        Engine expected = Engine.of(IdemSettings.ofDefaults());
        for (String key : IdemSettings.KEYS) {
            String value = defaults.get(key);
            if (value != null) {
                assertEquals(expected, Engine.of(IdemSettings.fromProperties(Map.of(key, value))),
                        key + " = \"" + value + "\" (the metadata's default) is not the engine's default");
            }
        }
    }

    @Test
    void theAspectOrdersDefaultIsTheStartersOwn() {
        String value = defaults.get(EnvironmentSettings.ASPECT_ORDER);
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test",
                Map.of(EnvironmentSettings.ASPECT_ORDER, value)));
        assertEquals(IdemAutoConfiguration.DEFAULT_ASPECT_ORDER, EnvironmentSettings.aspectOrder(environment, 0));
    }

    @Test
    void theInMemoryStoresDefaultsAreTheBoundOfAnEmptyConfiguration() throws Exception {
        IdempotencyStoreProvider memory = provider("memory");
        InMemoryIdempotencyStore plain = (InMemoryIdempotencyStore) memory.create(Map.of(), Clock.systemUTC());
        Map<String, String> given = storeDefaults("memory");
        assertFalse(given.isEmpty(), "no defaults of idem.memory.*");
        try (plain; InMemoryIdempotencyStore fromDefaults =
                (InMemoryIdempotencyStore) memory.create(given, Clock.systemUTC())) {
            assertEquals(List.of(plain.maximumSize(), plain.maximumBytes()),
                    List.of(fromDefaults.maximumSize(), fromDefaults.maximumBytes()), "the bound from " + given);
        }
    }

    @Test
    void theJdbcStoreIsMadeFromItsDefaults() throws Exception {
        IdempotencyStoreProvider jdbc = provider("jdbc");
        String url = "jdbc:h2:mem:metadata-defaults;DB_CLOSE_DELAY=-1";
        // The code's default table, made by the code: the store made from the metadata's defaults (createTable
        // false) finds it only if the metadata's table is the code's.
        jdbc.create(Map.of("url", url, "createTable", "true"), Clock.systemUTC()).close();
        Map<String, String> given = new HashMap<>(storeDefaults("jdbc"));
        assertEquals(JdbcIdempotencyStore.DEFAULT_TABLE, given.get("table"), "idem.jdbc.table's default");
        given.put("url", url);
        try (IdempotencyStore store = jdbc.create(given, Clock.systemUTC())) {
            assertAnswers(store, given);
        }
    }

    @Test
    void theRedisStoresDefaultsAreItsOwn() {
        // Compared with the store's constants, not by making a store: on Spring Boot 3.5 the Netty that Boot's
        // dependency management chooses is older than the one Lettuce needs, which is not this test's concern.
        Map<String, String> given = storeDefaults("redis");
        assertEquals(RedisIdempotencyStore.DEFAULT_PREFIX, given.get("prefix"), "idem.redis.prefix's default");
        assertEquals(RedisIdempotencyStore.DEFAULT_TIMEOUT, DurationGrammar.parse(given.get("timeout")),
                "idem.redis.timeout's default");
    }

    /** The store reads from its server: a key nobody wrote has no record. */
    private static void assertAnswers(IdempotencyStore store, Map<String, String> given) {
        assertEquals(Optional.empty(), store.get("idem:metadata-defaults:none:" + UUID.randomUUID()),
                "a read from the store made from " + given);
    }

    /** The metadata's defaults of {@code idem.<store>.*}, without that prefix, as a provider is given them. */
    private static Map<String, String> storeDefaults(String store) {
        String prefix = "idem." + store + ".";
        Map<String, String> given = new TreeMap<>();
        defaults.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                given.put(key.substring(prefix.length()), value);
            }
        });
        return given;
    }

    private static IdempotencyStoreProvider provider(String name) {
        for (IdempotencyStoreProvider provider : ServiceLoader.load(IdempotencyStoreProvider.class)) {
            if (provider.name().equals(name)) {
                return provider;
            }
        }
        throw new AssertionError("no store provider called " + name + " on the class path");
    }

    /** What the engine's keys set, compared as a whole. */
    private record Engine(String namespace, String store, String codec, OnStoreError onStoreError,
                          Duration waitRecheck) {
        static Engine of(IdemSettings settings) {
            return new Engine(settings.namespace(), settings.defaultStore(), settings.defaultCodec(),
                    settings.onStoreError(), settings.waitRecheck());
        }
    }
}
