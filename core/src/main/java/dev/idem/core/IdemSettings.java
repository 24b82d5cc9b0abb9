package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.OnStoreError;
import dev.idem.codec.ResultCodecProvider;
import dev.idem.core.internal.call.LeaseHeartbeat;
import dev.idem.core.internal.retry.RetryTimer;
import dev.idem.store.IdempotencyStore;
import jakarta.annotation.Nonnull;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The engine-wide configuration. Immutable; built by {@link #custom()}, read from the environment by
 * {@link #fromEnvironment()}, or from key/value pairs by {@link #fromProperties(Map)} (the same keys a launcher
 * passes as agent arguments).
 *
 * <table>
 *   <caption>Configuration keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code idem.namespace}</td><td>{@code default}</td><td>the deployment; keys of two namespaces never
 *       meet</td></tr>
 *   <tr><td>{@code idem.store}</td><td>{@code memory}</td><td>the default store: a provider's name or an
 *       {@code IdempotencyStoreProvider} class name</td></tr>
 *   <tr><td>{@code idem.codec}</td><td>{@code json} if idem-codec-jackson is on the class path, else
 *       {@code java}</td><td>the default result codec</td></tr>
 *   <tr><td>{@code idem.onStoreError}</td><td>{@code fail-closed}</td><td>{@code fail-open} lets every method run
 *       unprotected when the store is down</td></tr>
 *   <tr><td>{@code idem.waitRecheck}</td><td>{@code 1s}</td><td>a caller waiting for an execution in another
 *       process, woken by its store's watch, claims again after at most this long without a signal</td></tr>
 *   <tr><td>{@code idem.<store>.*}</td><td></td><td>handed to that store's provider</td></tr>
 * </table>
 */
public final class IdemSettings {
    /** The key of the deployment's namespace, {@value}. */
    public static final String NAMESPACE = "idem.namespace";
    /** The key of the default store's name, {@value}. */
    public static final String STORE = "idem.store";
    /**
     * The key of the default result codec's name, {@value}: {@code json}, {@code java}, or unset for the
     * highest-priority codec on the class path.
     */
    public static final String CODEC = "idem.codec";
    /** The key of what happens while the store is down, {@value}: {@code fail-closed} or {@code fail-open}. */
    public static final String ON_STORE_ERROR = "idem.onStoreError";
    /**
     * The key of the longest a caller waiting for another process's execution goes without claiming again when its
     * store wakes it by a watch ({@link IdempotencyStore#watch}), {@value}: a duration such as {@code 1s}.
     */
    public static final String WAIT_RECHECK = "idem.waitRecheck";
    /**
     * The engine's own keys, in the order messages name them. Every other {@code idem.} key the engine accepts is a
     * store's own, {@code idem.<store>.<name>}, handed to that store's provider
     * ({@link dev.idem.store.IdempotencyStoreProvider#propertyNames()}); any other is refused as unknown.
     */
    public static final List<String> KEYS = List.of(NAMESPACE, STORE, CODEC, ON_STORE_ERROR, WAIT_RECHECK);

    private final String namespace;
    private final String defaultStore;
    private final String defaultCodec;
    private final OnStoreError onStoreError;
    private final Clock clock;
    private final Map<String, IdempotencyStore> stores;
    private final Map<String, String> properties;
    private final List<IdempotencyListener> listeners;
    private final List<KeyCanonicalizer<?>> canonicalizers;
    private final List<Reconciler> reconcilers;
    private final List<ResultCodecProvider> codecs;
    private final int completionAttempts;
    private final Duration completionBackoff;
    private final Duration waitRecheck;
    private final LeaseHeartbeat.Scheduler heartbeatScheduler;
    private final List<RetryClassifier> retryClassifiers;
    private final List<RetryAfter> retryAfters;
    private final RandomGenerator retryRandom;
    private final RetryTimer retryTimer;

    private IdemSettings(Builder b) {
        this.namespace = b.namespace;
        this.defaultStore = b.defaultStore;
        this.defaultCodec = b.defaultCodec;
        this.onStoreError = b.onStoreError;
        this.clock = b.clock;
        this.stores = Map.copyOf(b.stores);
        this.properties = Map.copyOf(b.properties);
        this.listeners = List.copyOf(b.listeners);
        this.canonicalizers = List.copyOf(b.canonicalizers);
        this.reconcilers = List.copyOf(b.reconcilers);
        this.codecs = List.copyOf(b.codecs);
        this.completionAttempts = b.completionAttempts;
        this.completionBackoff = b.completionBackoff;
        this.waitRecheck = b.waitRecheck;
        this.heartbeatScheduler = b.heartbeatScheduler;
        this.retryClassifiers = List.copyOf(b.retryClassifiers);
        this.retryAfters = List.copyOf(b.retryAfters);
        this.retryRandom = b.retryRandom;
        this.retryTimer = b.retryTimer;
    }

    /** {@return a builder that starts from the defaults} */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * A builder that starts from {@code base}: every setting, store, listener and extension of it, to which the
     * builder adds (a framework adds the application's beans to the settings its properties describe).
     *
     * @param base the settings to start from
     * @return a new builder; {@code base} is not changed
     */
    public static Builder from(@Nonnull IdemSettings base) {
        Builder b = new Builder();
        b.namespace = base.namespace;
        b.defaultStore = base.defaultStore;
        b.defaultCodec = base.defaultCodec;
        b.onStoreError = base.onStoreError;
        b.clock = base.clock;
        b.stores.putAll(base.stores);
        b.properties.putAll(base.properties);
        b.listeners.addAll(base.listeners);
        b.canonicalizers.addAll(base.canonicalizers);
        b.reconcilers.addAll(base.reconcilers);
        b.codecs.addAll(base.codecs);
        b.completionAttempts = base.completionAttempts;
        b.completionBackoff = base.completionBackoff;
        b.waitRecheck = base.waitRecheck;
        b.heartbeatScheduler = base.heartbeatScheduler;
        b.retryClassifiers.addAll(base.retryClassifiers);
        b.retryAfters.addAll(base.retryAfters);
        b.retryRandom = base.retryRandom;
        b.retryTimer = base.retryTimer;
        return b;
    }

    /** {@return the defaults: namespace {@code default}, the in-memory store, fail-closed} */
    public static IdemSettings ofDefaults() {
        return custom().build();
    }

    /**
     * Settings from system properties, then {@code idem.properties} on the class path, then defaults; listeners,
     * canonicalisers, retry classifiers, {@code Retry-After} extractors and reconcilers listed in
     * {@code META-INF/services} are added.
     *
     * @return the settings the environment describes
     * @throws IdempotencyConfigurationException for an unknown {@code idem.} key or a bad value, naming both
     */
    public static IdemSettings fromEnvironment() {
        return fromEnvironment(Map.of());
    }

    /**
     * Settings from the environment as {@link #fromEnvironment()} reads it, with {@code overrides} (such as an
     * agent's arguments, in {@code idem.*} form) taking precedence over everything else.
     *
     * @param overrides {@code idem.*} keys and values that win over system properties and {@code idem.properties}
     * @return the settings the environment and the overrides describe
     * @throws IdempotencyConfigurationException for an unknown {@code idem.} key or a bad value, naming both
     */
    public static IdemSettings fromEnvironment(Map<String, String> overrides) {
        return SettingsReader.fromEnvironment(overrides);
    }

    /**
     * Settings from the given {@code idem.*} keys alone; see the class comment for the keys.
     *
     * @param properties {@code idem.*} keys and their values
     * @return the settings they describe, defaults elsewhere
     * @throws IdempotencyConfigurationException for an unknown {@code idem.} key or a bad value, naming both
     */
    public static IdemSettings fromProperties(Map<String, String> properties) {
        return SettingsReader.read(properties, custom()).build();
    }

    /** {@return the deployment's namespace, part of every key} */
    public String namespace() {
        return namespace;
    }

    /** {@return the name of the store methods use unless their annotation names another} */
    public String defaultStore() {
        return defaultStore;
    }

    /**
     * {@return the name of the codec methods use unless their annotation names another; empty means the
     * highest-priority codec on the class path ({@code json} when idem-codec-jackson is there, else {@code java})}
     */
    public String defaultCodec() {
        return defaultCodec;
    }

    /** {@return what every method does while the store is down, unless its annotation says otherwise} */
    public OnStoreError onStoreError() {
        return onStoreError;
    }

    /** {@return the clock records are stamped with} */
    public Clock clock() {
        return clock;
    }

    /** {@return the store instances registered by name; they take precedence over providers of the same name} */
    public Map<String, IdempotencyStore> stores() {
        return stores;
    }

    /** {@return the {@code idem.<store>.*} keys, with their prefix, and their values} */
    public Map<String, String> properties() {
        return properties;
    }

    /** {@return the listeners every event goes to, in registration order} */
    public List<IdempotencyListener> listeners() {
        return listeners;
    }

    /** {@return the key canonicalisers, in registration order} */
    public List<KeyCanonicalizer<?>> canonicalizers() {
        return canonicalizers;
    }

    /** {@return the reconcilers of {@code onAbandoned = RECONCILE} operations, in registration order} */
    public List<Reconciler> reconcilers() {
        return reconcilers;
    }

    /** {@return the result codecs given as instances, in the order they were added} */
    public List<ResultCodecProvider> codecs() {
        return codecs;
    }

    /** {@return how often saving a result is tried before the INDETERMINATE event} */
    public int completionAttempts() {
        return completionAttempts;
    }

    /** {@return the first pause between completion attempts; it doubles after each} */
    public Duration completionBackoff() {
        return completionBackoff;
    }

    /**
     * {@return the retry classifiers, asked in registration order before the built-in one} See
     * {@link RetryClassifier}.
     */
    public List<RetryClassifier> retryClassifiers() {
        return retryClassifiers;
    }

    /**
     * {@return the {@code Retry-After} extractors, asked in registration order before the built-in one} See
     * {@link RetryAfter}.
     */
    public List<RetryAfter> retryAfters() {
        return retryAfters;
    }

    /**
     * {@return the longest a caller waiting for another process's execution goes without claiming again when its
     * store wakes it by a watch; a store's signals can be lost, and an owner that died never finishes}
     */
    public Duration waitRecheck() {
        return waitRecheck;
    }

    LeaseHeartbeat.Scheduler heartbeatScheduler() {
        return heartbeatScheduler;
    }

    RandomGenerator retryRandom() {
        return retryRandom;
    }

    RetryTimer retryTimer() {
        return retryTimer;
    }

    /** Builds {@link IdemSettings}. */
    public static final class Builder {
        private String namespace = "default";
        private String defaultStore = "memory";
        private String defaultCodec = "";
        private OnStoreError onStoreError = OnStoreError.FAIL_CLOSED;
        private Clock clock = Clock.systemUTC();
        private final Map<String, IdempotencyStore> stores = new LinkedHashMap<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final List<IdempotencyListener> listeners = new ArrayList<>();
        private final List<KeyCanonicalizer<?>> canonicalizers = new ArrayList<>();
        private final List<Reconciler> reconcilers = new ArrayList<>();
        private final List<ResultCodecProvider> codecs = new ArrayList<>();
        private int completionAttempts = 3;
        private Duration completionBackoff = Duration.ofMillis(50);
        private Duration waitRecheck = Duration.ofSeconds(1);
        private LeaseHeartbeat.Scheduler heartbeatScheduler;
        private final List<RetryClassifier> retryClassifiers = new ArrayList<>();
        private final List<RetryAfter> retryAfters = new ArrayList<>();
        private RandomGenerator retryRandom;
        private RetryTimer retryTimer;

        private Builder() {
        }

        /**
         * Sets the deployment, such as {@code prod}; keys of two namespaces never meet.
         *
         * @param namespace 1-64 letters, digits, {@code . _ -}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the bad value
         */
        public Builder namespace(@Nonnull String namespace) {
            this.namespace = requireName(NAMESPACE, namespace);
            return this;
        }

        /**
         * Sets the store methods use unless their annotation names another.
         *
         * @param name a store's name: a registered instance's, a provider's, or a provider class name
         * @return this builder
         */
        public Builder defaultStore(@Nonnull String name) {
            this.defaultStore = Objects.requireNonNull(name, STORE).trim();
            if (defaultStore.isEmpty()) {
                throw new IdempotencyConfigurationException(STORE + " = \"" + name + "\" is empty");
            }
            return this;
        }

        /**
         * Sets the result codec methods use unless their annotation names another.
         *
         * @param name a codec's name such as {@code json} or {@code java}; empty for the highest-priority codec on
         *             the class path
         * @return this builder
         */
        public Builder defaultCodec(@Nonnull String name) {
            this.defaultCodec = Objects.requireNonNull(name, CODEC).trim();
            return this;
        }

        /**
         * Registers a store instance under {@code name}; it serves methods whose store has that name (the default
         * store too, if named so). The caller keeps ownership: closing the engine does not close it.
         *
         * @param name  1-64 letters, digits, {@code . _ -}
         * @param store the store
         * @return this builder
         */
        public Builder store(@Nonnull String name, @Nonnull IdempotencyStore store) {
            stores.put(requireName("store name", name), Objects.requireNonNull(store, "store"));
            return this;
        }

        /**
         * Sets what methods do while the store is down; {@code FAIL_OPEN} makes every method run unprotected then.
         *
         * @param onStoreError the engine-wide default
         * @return this builder
         */
        public Builder onStoreError(@Nonnull OnStoreError onStoreError) {
            this.onStoreError = Objects.requireNonNull(onStoreError, ON_STORE_ERROR);
            return this;
        }

        /**
         * Sets the clock records are stamped with (tests move it instead of sleeping).
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(@Nonnull Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Adds a store's own setting.
         *
         * @param key   {@code idem.<store>.<name>}
         * @param value its value
         * @return this builder
         */
        public Builder property(@Nonnull String key, @Nonnull String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Adds a listener, which receives every event of the engine.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(@Nonnull IdempotencyListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Adds a reconciler, asked whether an abandoned execution's work happened for the operations it
         * {@linkplain Reconciler#reconciles(String) answers for} ({@code onAbandoned = RECONCILE}).
         *
         * @param reconciler the reconciler
         * @return this builder
         */
        public Builder reconciler(@Nonnull Reconciler reconciler) {
            reconcilers.add(Objects.requireNonNull(reconciler, "reconciler"));
            return this;
        }

        /**
         * Adds a result codec instance (one configured by the application, rather than found with
         * {@code ServiceLoader}): it serves its {@linkplain ResultCodecProvider#name() name}, winning the name over a
         * codec of the class path whatever their priorities, and is the default codec when {@code idem.codec} is
         * unset and its priority is the highest.
         *
         * @param codec the codec
         * @return this builder
         */
        public Builder codec(@Nonnull ResultCodecProvider codec) {
            codecs.add(Objects.requireNonNull(codec, "codec"));
            return this;
        }

        /**
         * Adds a key canonicaliser, which encodes key values of its type.
         *
         * @param canonicalizer the canonicaliser
         * @return this builder
         */
        public Builder canonicalizer(@Nonnull KeyCanonicalizer<?> canonicalizer) {
            canonicalizers.add(Objects.requireNonNull(canonicalizer, "canonicalizer"));
            return this;
        }

        /**
         * Sets how often, and with what first pause (doubling), saving a result is tried.
         *
         * @param attempts     at least 1
         * @param firstBackoff the pause after the first failed attempt; not negative
         * @return this builder
         * @throws IdempotencyConfigurationException naming the bad value
         */
        public Builder completionRetry(int attempts, @Nonnull Duration firstBackoff) {
            if (attempts < 1) {
                throw new IdempotencyConfigurationException("completion attempts must be at least 1: " + attempts);
            }
            if (firstBackoff.isNegative()) {
                throw new IdempotencyConfigurationException("completion backoff must not be negative: "
                        + firstBackoff);
            }
            this.completionAttempts = attempts;
            this.completionBackoff = firstBackoff;
            return this;
        }

        /**
         * Adds a retry classifier, asked (after those added before it) whether a failed attempt may be retried.
         *
         * @param classifier the classifier
         * @return this builder
         */
        public Builder retryClassifier(@Nonnull RetryClassifier classifier) {
            retryClassifiers.add(Objects.requireNonNull(classifier, "retryClassifier"));
            return this;
        }

        /**
         * Adds a {@code Retry-After} extractor, asked (after those added before it) what pause a failure asks for.
         *
         * @param retryAfter the extractor
         * @return this builder
         */
        public Builder retryAfter(@Nonnull RetryAfter retryAfter) {
            retryAfters.add(Objects.requireNonNull(retryAfter, "retryAfter"));
            return this;
        }

        /** Lets tests fix the back-off's random draws; production draws from a thread-local random. */
        Builder retryRandom(RandomGenerator random) {
            this.retryRandom = random;
            return this;
        }

        /** Lets tests record pauses between attempts instead of waiting them. */
        Builder retryTimer(RetryTimer timer) {
            this.retryTimer = timer;
            return this;
        }

        /**
         * Sets {@link IdemSettings#waitRecheck()} [1s]: how long a caller waiting for an execution in another
         * process, on a store that wakes it ({@link IdempotencyStore#watch}), goes without a signal before it claims
         * again. Each wait is drawn between half of it and all of it, so waiters spread out. It bounds how late a
         * waiter notices a lost signal, or the lease of a crashed owner passing; stores without watches are polled
         * (5 ms, doubling to 200 ms) whatever it says.
         *
         * @param waitRecheck positive
         * @return this builder
         * @throws IdempotencyConfigurationException naming the bad value
         */
        public Builder waitRecheck(@Nonnull Duration waitRecheck) {
            if (waitRecheck == null || waitRecheck.isNegative() || waitRecheck.isZero()) {
                throw new IdempotencyConfigurationException(WAIT_RECHECK + " must be positive: " + waitRecheck);
            }
            this.waitRecheck = waitRecheck;
            return this;
        }

        /** Lets tests beat leases by hand; production uses one daemon thread per engine. */
        Builder heartbeatScheduler(LeaseHeartbeat.Scheduler scheduler) {
            this.heartbeatScheduler = scheduler;
            return this;
        }

        /** {@return the settings} */
        public IdemSettings build() {
            return new IdemSettings(this);
        }

        private static String requireName(String what, String value) {
            String name = value == null ? null : value.trim();
            if (!isName(name)) {
                throw new IdempotencyConfigurationException(what + " = \"" + value + "\" must be 1-64 letters,"
                        + " digits, '.', '_' or '-'");
            }
            return name;
        }

        /** Whether {@code name} is 1-64 of ASCII letters, digits, {@code . _ -}. */
        private static boolean isName(String name) {
            if (name == null || name.isEmpty() || name.length() > 64) {
                return false;
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                boolean allowed = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                        || c == '.' || c == '_' || c == '-';
                if (!allowed) {
                    return false;
                }
            }
            return true;
        }
    }
}
