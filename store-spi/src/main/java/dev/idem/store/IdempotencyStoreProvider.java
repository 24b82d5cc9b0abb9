package dev.idem.store;

import jakarta.annotation.Nonnull;

import java.time.Clock;
import java.util.Map;
import java.util.Set;

/**
 * Makes a store known by name ({@code idem.store=redis}), found with {@link java.util.ServiceLoader}. When two
 * providers claim one name, the one with the higher {@link jakarta.annotation.Priority} wins.
 */
public interface IdempotencyStoreProvider {

    /** {@return the name users configure, such as {@code memory}, {@code jdbc} or {@code redis}; never null} */
    @Nonnull
    String name();

    /**
     * {@return the names of the configuration keys this provider reads, without the {@code idem.<name>.} prefix,
     * such as {@code url} for {@code idem.jdbc.url}; never null} A provider that lists its names refuses every other
     * name in {@link #create}, so the list is the whole of what it accepts (tools that describe the configuration,
     * such as the Spring starters' metadata, are checked against it). Empty means the provider does not say.
     */
    @Nonnull
    default Set<String> propertyNames() {
        return Set.of();
    }

    /**
     * Creates the store.
     *
     * @param properties the configuration keys under {@code idem.<name>.}, with that prefix removed
     * @param clock      the engine's clock, for stores that keep time themselves
     * @return a new store, owned and closed by the caller; never null
     * @throws dev.idem.IdempotencyConfigurationException when a property is missing or wrong (a bad URL, an
     *                                                    unknown key): reported at once, and at every call
     * @throws dev.idem.IdempotencyStoreUnreachableException when the store's server cannot be reached now: the
     *                                                       engine then fails calls fast (or runs them unprotected
     *                                                       under {@code onStoreError = FAIL_OPEN}) and calls this
     *                                                       method again in the background, one attempt at a time,
     *                                                       until it returns a store
     * @throws dev.idem.IdempotencyStoreException when the server answered but cannot serve (a missing table, a
     *                                            refused login): reported as it is, at every call
     */
    @Nonnull
    IdempotencyStore create(@Nonnull Map<String, String> properties, @Nonnull Clock clock);
}
