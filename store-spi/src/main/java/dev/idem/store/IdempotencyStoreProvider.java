package dev.idem.store;

import jakarta.annotation.Nonnull;

import java.time.Clock;
import java.util.Map;

/**
 * Makes a store known by name ({@code idem.store=redis}), found with {@link java.util.ServiceLoader}. When two
 * providers claim one name, the one with the higher {@link jakarta.annotation.Priority} wins.
 */
public interface IdempotencyStoreProvider {

    /** {@return the name users configure, such as {@code memory}, {@code jdbc} or {@code redis}; never null} */
    @Nonnull
    String name();

    /**
     * Creates the store.
     *
     * @param properties the configuration keys under {@code idem.<name>.}, with that prefix removed
     * @param clock      the engine's clock, for stores that keep time themselves
     * @return a new store, owned and closed by the caller; never null
     */
    @Nonnull
    IdempotencyStore create(@Nonnull Map<String, String> properties, @Nonnull Clock clock);
}
