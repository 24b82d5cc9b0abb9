package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;
import jakarta.annotation.Priority;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/configuration.md: a store is named by a provider ({@code memory}, later {@code jdbc}, {@code redis}) or an
 * {@code IdempotencyStoreProvider} class name; {@code idem.<store>.*} keys are handed to its provider; an unknown
 * name is an error listing the known ones. Instances registered in the settings come first and stay the caller's.
 */
public class StoreRegistryTest {
    private final Clock clock = Clock.systemUTC();
    private StoreRegistry registry;

    @AfterEach
    void close() {
        if (registry != null) {
            registry.close();
        }
    }

    /** A store that only records what it was created with and whether it was closed. */
    public static class RecordingStore implements IdempotencyStore {
        final String madeBy;
        final Map<String, String> properties;
        final Clock clock;
        final AtomicInteger closed = new AtomicInteger();
        volatile boolean failOnClose;

        RecordingStore(String madeBy, Map<String, String> properties, Clock clock) {
            this.madeBy = madeBy;
            this.properties = properties;
            this.clock = clock;
        }

        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean complete(String key, long token, byte[] result, Duration ttl) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean fail(String key, long token, byte[] failure, Duration failureTtl) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean release(String key, long token) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean renew(String key, long token, Duration lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<IdempotencyRecord> get(String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void delete(String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
            closed.incrementAndGet();
            if (failOnClose) {
                throw new IllegalStateException("close failed");
            }
        }
    }

    abstract static class Named implements IdempotencyStoreProvider {
        static final AtomicInteger CREATED = new AtomicInteger();
        private final String name;

        Named(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public IdempotencyStore create(Map<String, String> properties, Clock clock) {
            CREATED.incrementAndGet();
            return new RecordingStore(getClass().getSimpleName(), properties, clock);
        }
    }

    @Priority(1)
    public static class LowRanked extends Named {
        public LowRanked() {
            super("ranked");
        }
    }

    public static class Unranked extends Named {
        public Unranked() {
            super("ranked");
        }
    }

    @Priority(5)
    public static class HighRanked extends Named {
        public HighRanked() {
            super("ranked");
        }
    }

    @Priority(-2)
    public static class BelowDefault extends Named {
        public BelowDefault() {
            super("fallback");
        }
    }

    public static class DefaultRank extends Named {
        public DefaultRank() {
            super("fallback");
        }
    }

    /** Not listed as a service: reachable only by its class name. */
    public static class ByClassName extends Named {
        public ByClassName() {
            super("by-class-name");
        }
    }

    public static class NeedsAnArgument extends Named {
        public NeedsAnArgument(String name) {
            super(name);
        }
    }

    /** A class loader that lists {@code providers} as store providers, beside core's own ({@code memory}). */
    private static ClassLoader listing(Class<?>... providers) throws IOException {
        Path dir = Files.createTempDirectory("store-providers");
        Path services = dir.resolve("META-INF/services/" + IdempotencyStoreProvider.class.getName());
        Files.createDirectories(services.getParent());
        StringBuilder lines = new StringBuilder();
        for (Class<?> provider : providers) {
            lines.append(provider.getName()).append('\n');
        }
        Files.writeString(services, lines);
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, StoreRegistryTest.class.getClassLoader());
    }

    private StoreRegistry registry(Map<String, IdempotencyStore> registered, Map<String, String> properties,
                                   String defaultName, ClassLoader loader) {
        registry = new StoreRegistry(registered, properties, defaultName, clock, loader, event -> {
        });
        return registry;
    }

    @Test
    void anEmptyNameIsTheDefaultStoreAndARegisteredInstanceComesFirst() throws IOException {
        IdempotencyStore mine = new InMemoryIdempotencyStore(clock);
        StoreRegistry stores = registry(Map.of("memory", mine), Map.of(), "memory", listing());
        assertEquals("memory", stores.defaultName());
        assertSame(mine, stores.resolve(""));
        assertSame(mine, stores.resolve("memory"));
    }

    @Test
    void aProviderMakesItsStoreOnceWithItsOwnSettingsAndTheEnginesClock() throws IOException {
        int before = Named.CREATED.get();
        StoreRegistry stores = registry(Map.of(), Map.of("idem.ranked.url", "mem://x", "idem.ranked.pool.size", "3",
                "idem.rankedx.url", "not mine", "idem.other.url", "not mine"), "ranked", listing(HighRanked.class));

        RecordingStore store = (RecordingStore) stores.resolve("");

        assertSame(store, stores.resolve("ranked"), "created once, then reused");
        assertEquals(before + 1, Named.CREATED.get());
        assertEquals(Map.of("url", "mem://x", "pool.size", "3"), store.properties);
        assertSame(clock, store.clock);
    }

    @Test
    void coresOwnMemoryProviderIsFoundByName() throws IOException {
        StoreRegistry stores = registry(Map.of(), Map.of(), "memory", listing());
        IdempotencyStore memory = stores.resolve("");
        assertInstanceOf(InMemoryIdempotencyStore.class, memory);
        assertSame(memory, stores.resolve("memory"));
    }

    @Test
    void theHighestPriorityWinsANameAndNoPriorityCountsAsZero() throws IOException {
        StoreRegistry stores = registry(Map.of(), Map.of(), "ranked", listing(LowRanked.class, Unranked.class,
                HighRanked.class, BelowDefault.class, DefaultRank.class));
        assertEquals("HighRanked", ((RecordingStore) stores.resolve("ranked")).madeBy);
        assertEquals("DefaultRank", ((RecordingStore) stores.resolve("fallback")).madeBy);
    }

    @Test
    void anUnknownNameIsRefusedListingTheKnownStores() throws IOException {
        StoreRegistry stores = registry(Map.of("zeta", new InMemoryIdempotencyStore(clock)), Map.of(), "memory",
                listing(HighRanked.class));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> stores.resolve("redis"));
        assertEquals("unknown store \"redis\"; known stores are [memory, ranked, zeta] (add the store's jar to the"
                + " class path, or give the class name of an IdempotencyStoreProvider)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> stores.resolve("com.example.NoSuchProvider"),
                "a class name that names no class is an unknown store too");
    }

    @Test
    void aProviderClassNameMakesThatProvidersStore() throws IOException {
        String className = ByClassName.class.getName();
        StoreRegistry stores = registry(Map.of(), Map.of("idem." + className + ".mode", "fast"), "memory", listing());
        RecordingStore store = (RecordingStore) stores.resolve(className);
        assertEquals("ByClassName", store.madeBy);
        assertEquals(Map.of("mode", "fast"), store.properties);
        assertSame(store, stores.resolve(className));
    }

    @Test
    void aClassThatIsNotAProviderOrCannotBeMadeIsAConfigurationError() throws IOException {
        StoreRegistry stores = registry(Map.of(), Map.of(), "memory", listing());
        IdempotencyConfigurationException notProvider = assertThrows(IdempotencyConfigurationException.class,
                () -> stores.resolve(String.class.getName()));
        assertEquals("store class java.lang.String is not an IdempotencyStoreProvider", notProvider.getMessage());
        IdempotencyConfigurationException noConstructor = assertThrows(IdempotencyConfigurationException.class,
                () -> stores.resolve(NeedsAnArgument.class.getName()));
        assertTrue(noConstructor.getMessage().startsWith("store provider " + NeedsAnArgument.class.getName()
                + " could not be created: "), noConstructor.getMessage());
    }

    @Test
    void closingClosesTheStoresItMadeEvenIfOneFailsButNeverARegisteredOne() throws IOException {
        RecordingStore mine = new RecordingStore("test", Map.of(), clock);
        StoreRegistry stores = registry(Map.of("mine", mine), Map.of(), "ranked", listing(HighRanked.class,
                DefaultRank.class));
        RecordingStore ranked = (RecordingStore) stores.resolve("ranked");
        RecordingStore fallback = (RecordingStore) stores.resolve("fallback");
        ranked.failOnClose = true;
        stores.resolve("mine");

        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(StoreRegistry.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        boolean parents = log.getUseParentHandlers();
        log.setUseParentHandlers(false);
        log.addHandler(capture);
        try {
            stores.close();
        } finally {
            log.removeHandler(capture);
            log.setUseParentHandlers(parents);
        }

        assertEquals(1, logged.size(), "the failed close is reported: " + logged);
        assertEquals(Level.WARNING, logged.get(0).getLevel());
        assertEquals("close failed", logged.get(0).getThrown().getMessage());

        assertEquals(1, ranked.closed.get());
        assertEquals(1, fallback.closed.get(), "closed although the store before it failed to close");
        assertEquals(0, mine.closed.get(), "a registered store stays the caller's");
        stores.close();
        assertEquals(1, fallback.closed.get(), "closed once");
        RecordingStore again = (RecordingStore) stores.resolve("fallback");
        assertNotSame(fallback, again, "after close a store is made anew");
    }
}
