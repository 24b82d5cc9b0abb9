package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;
import java.lang.System.Logger.Level;
import java.lang.annotation.Annotation;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves store names to stores, once each: instances registered in the settings first, then providers found
 * with {@link ServiceLoader} (the highest {@code jakarta.annotation.Priority} wins a name), then a provider's class
 * name. Closes the stores it created. A store whose server is unreachable when it is created
 * ({@link IdempotencyStoreUnreachableException}) is handed out as a {@link DeferredStore}, created again in the
 * background until the server answers; every other failure to create a store is thrown. Every in-memory store it
 * hands out, registered or created, reports its evictions to the engine's listener until the registry closes (a
 * registered store may outlive the engine, or serve several).
 */
public final class StoreRegistry implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(StoreRegistry.class.getName());
    private static final String PRIORITY = "jakarta.annotation.Priority";

    private final Map<String, IdempotencyStore> registered;
    private final Map<String, String> properties;
    private final String defaultName;
    private final Clock clock;
    private final ClassLoader loader;
    private final Map<String, IdempotencyStore> resolved = new ConcurrentHashMap<>();
    private final List<IdempotencyStore> created = new ArrayList<>();
    private final IdempotencyListener evictions;
    private final List<InMemoryIdempotencyStore> watched = new ArrayList<>();

    /**
     * @param evictions where the in-memory stores report records their bound evicted while they still counted
     */
    public StoreRegistry(Map<String, IdempotencyStore> registered, Map<String, String> properties, String defaultName,
                  Clock clock, ClassLoader loader, IdempotencyListener evictions) {
        this.registered = registered;
        this.properties = properties;
        this.defaultName = defaultName;
        this.clock = clock;
        this.loader = loader;
        this.evictions = evictions;
        for (IdempotencyStore store : registered.values()) {
            watchEvictions(store);
        }
    }

    public String defaultName() {
        return defaultName;
    }

    /**
     * The store called {@code name} (empty: the default).
     *
     * @throws IllegalArgumentException naming the known stores when none has that name
     */
    public IdempotencyStore resolve(String name) {
        String effective = name.isEmpty() ? defaultName : name;
        IdempotencyStore store = registered.get(effective);
        if (store != null) {
            return store;
        }
        return resolved.computeIfAbsent(effective, this::create);
    }

    private synchronized IdempotencyStore create(String name) {
        Map<String, IdempotencyStoreProvider> providers = providers();
        IdempotencyStoreProvider provider = providers.get(name);
        if (provider == null && name.contains(".")) {
            provider = instantiate(name);
        }
        if (provider == null) {
            TreeSet<String> known = new TreeSet<>(providers.keySet());
            known.addAll(registered.keySet());
            throw new IllegalArgumentException("unknown store \"" + name + "\"; known stores are " + known
                    + " (add the store's jar to the class path, or give the class name of an"
                    + " IdempotencyStoreProvider)");
        }
        String prefix = "idem." + name + ".";
        Map<String, String> own = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                own.put(e.getKey().substring(prefix.length()), e.getValue());
            }
        }
        IdempotencyStore store;
        try {
            store = provider.create(own, clock);
        } catch (IdempotencyStoreUnreachableException e) {
            // An outage, not a mistake: plan the methods now and let the store come when its server does.
            LOG.log(Level.WARNING, "store \"" + name + "\" is unreachable (" + e.getMessage() + "); until it"
                    + " answers, calls fail closed at once (or run unprotected under onStoreError = FAIL_OPEN),"
                    + " and it is tried again in the background");
            IdempotencyStoreProvider creating = provider;
            store = new DeferredStore(name, () -> creating.create(own, clock), e);
        }
        created.add(store);
        watchEvictions(store);
        return store;
    }

    private synchronized void watchEvictions(IdempotencyStore store) {
        if (store instanceof InMemoryIdempotencyStore memory) {
            memory.addEvictionListener(evictions);
            watched.add(memory);
        }
    }

    private Map<String, IdempotencyStoreProvider> providers() {
        // The highest priority wins a name; of equal priorities, the first found.
        Map<String, IdempotencyStoreProvider> byName = new LinkedHashMap<>();
        Map<String, Integer> priorities = new HashMap<>();
        for (IdempotencyStoreProvider p : ServiceLoader.load(IdempotencyStoreProvider.class, loader)) {
            int priority = priority(p);
            Integer held = priorities.get(p.name());
            if (held == null || priority > held) {
                byName.put(p.name(), p);
                priorities.put(p.name(), priority);
            }
        }
        return byName;
    }

    /**
     * The provider's {@code jakarta.annotation.Priority}, else 0. Read by the annotation's name rather than its
     * class: the agent jar does not bundle jakarta.annotation, so there the only {@code Priority} is the
     * application's own (or none at all, and then no provider can carry one).
     */
    private static int priority(IdempotencyStoreProvider provider) {
        for (Annotation a : provider.getClass().getAnnotations()) {
            if (a.annotationType().getName().equals(PRIORITY)) {
                try {
                    return (Integer) a.annotationType().getMethod("value").invoke(a);
                } catch (ReflectiveOperationException | ClassCastException e) {
                    throw new IllegalStateException("cannot read @Priority of " + provider.getClass().getName(), e);
                }
            }
        }
        return 0;
    }

    private IdempotencyStoreProvider instantiate(String className) {
        try {
            Class<?> c = Class.forName(className, true, loader);
            if (!IdempotencyStoreProvider.class.isAssignableFrom(c)) {
                throw new IdempotencyConfigurationException("store class " + className
                        + " is not an IdempotencyStoreProvider");
            }
            return (IdempotencyStoreProvider) c.getConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new IdempotencyConfigurationException("store provider " + className + " could not be created: "
                    + e, e);
        }
    }

    @Override
    public synchronized void close() {
        watched.forEach(memory -> memory.removeEvictionListener(evictions));
        watched.clear();
        for (IdempotencyStore store : created) {
            try {
                store.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing store " + store + " failed", e);
            }
        }
        created.clear();
        resolved.clear();
    }
}
