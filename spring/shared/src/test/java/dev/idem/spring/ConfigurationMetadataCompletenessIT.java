package dev.idem.spring;

import dev.idem.core.IdemSettings;
import dev.idem.store.IdempotencyStoreProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ValueHint;

import java.io.IOException;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The packaged metadata describes every {@code idem.*} key the code accepts and no key it refuses. The accepted keys
 * are read from the lists that make any other key an error: the engine's {@link IdemSettings#KEYS}, each store
 * provider's {@link IdempotencyStoreProvider#propertyNames()} under {@code idem.<store>.}, and the starter's own
 * {@link EnvironmentSettings#STARTER_KEYS}.
 */
class ConfigurationMetadataCompletenessIT {
    /** The stores the starter's documentation and metadata describe; their jars are on this test's class path. */
    private static final Set<String> DESCRIBED_STORES = Set.of("memory", "jdbc", "redis");

    @Test
    void theMetadataListsEveryKeyTheCodeAcceptsAndNoOther() throws IOException {
        Set<String> accepted = new TreeSet<>(IdemSettings.KEYS);
        accepted.addAll(EnvironmentSettings.STARTER_KEYS);
        stores().forEach((store, provider) -> provider.propertyNames()
                .forEach(name -> accepted.add("idem." + store + "." + name)));
        Set<String> described = new TreeSet<>(PackagedMetadata.ofBuiltStarter().repository().getAllProperties()
                .keySet());

        Set<String> missing = new TreeSet<>(accepted);
        missing.removeAll(described);
        Set<String> refused = new TreeSet<>(described);
        refused.removeAll(accepted);
        assertEquals(Set.of(), missing, "keys the code accepts that " + PackagedMetadata.ENTRY + " does not list");
        assertEquals(Set.of(), refused, "keys " + PackagedMetadata.ENTRY + " lists that the code refuses");
    }

    @Test
    void everyStoreTheMetadataDescribesSaysWhichKeysItAccepts() {
        TreeMap<String, IdempotencyStoreProvider> stores = stores();
        assertEquals(new TreeSet<>(DESCRIBED_STORES), stores.navigableKeySet(), "the store providers found");
        stores.forEach((store, provider) -> assertFalse(provider.propertyNames().isEmpty(),
                store + "'s provider lists no keys, so its keys cannot be checked"));
    }

    @Test
    void idemStoreOffersEveryStoreByName() throws IOException {
        ConfigurationMetadataProperty store = PackagedMetadata.ofBuiltStarter().property(IdemSettings.STORE);
        Set<Object> offered = new TreeSet<>();
        for (ValueHint hint : store.getHints().getValueHints()) {
            offered.add(hint.getValue());
        }
        assertEquals(new TreeSet<>(DESCRIBED_STORES), offered, IdemSettings.STORE + "'s hints");
    }

    /** The store providers on the class path, by name. */
    private static TreeMap<String, IdempotencyStoreProvider> stores() {
        TreeMap<String, IdempotencyStoreProvider> stores = new TreeMap<>();
        for (IdempotencyStoreProvider provider : ServiceLoader.load(IdempotencyStoreProvider.class)) {
            stores.put(provider.name(), provider);
        }
        return stores;
    }
}
