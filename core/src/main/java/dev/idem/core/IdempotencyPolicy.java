package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.OnInProgress;
import dev.idem.OnStoreError;
import dev.idem.WindowAlignment;
import dev.idem.core.internal.DurationParser;
import jakarta.annotation.Nonnull;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;

/**
 * What one idempotent operation promises: the parsed, validated form of {@link Idempotent}. Immutable.
 *
 * <p>Annotation users get one from {@link #from(Idempotent, String)}; code that cannot use annotations builds one
 * with {@link #custom()} and hands it to {@link IdemEngine#operation}. Both paths run the same validation, and
 * every refusal is an {@link IdempotencyConfigurationException} naming the operation, the attribute and the value.
 */
public final class IdempotencyPolicy {
    private final String operation;
    private final String scope;
    private final List<String> key;
    private final Duration window;
    private final WindowAlignment windowAlignment;
    private final ZoneId zone;
    private final Duration ttl;
    private final Duration lease;
    private final OnInProgress onInProgress;
    private final Duration waitTimeout;
    private final OnStoreError onStoreError;
    private final Duration failureTtl;
    private final List<Class<? extends Throwable>> noRetryFor;
    private final String version;
    private final String store;
    private final boolean coalesce;

    private IdempotencyPolicy(Builder b) {
        this.operation = b.operation;
        this.scope = b.scope;
        this.key = List.copyOf(b.key);
        this.window = b.window;
        this.windowAlignment = b.windowAlignment;
        this.zone = b.zone;
        this.ttl = b.ttl;
        this.lease = b.lease;
        this.onInProgress = b.onInProgress;
        this.waitTimeout = b.waitTimeout;
        this.onStoreError = b.onStoreError;
        this.failureTtl = b.failureTtl;
        this.noRetryFor = List.copyOf(b.noRetryFor);
        this.version = b.version;
        this.store = b.store;
        this.coalesce = b.coalesce;
    }

    /** A builder starting from the annotation's defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from {@code base}. */
    public static Builder from(IdempotencyPolicy base) {
        return new Builder(base);
    }

    /** The annotation's defaults: ttl 1h, lease 30s, wait up to 10s, fail closed, coalesce. */
    public static IdempotencyPolicy ofDefaults() {
        return custom().build();
    }

    /**
     * The policy {@code annotation} declares.
     *
     * @param operation how errors name the method, {@code com.acme.Pipeline#generate}
     * @throws IdempotencyConfigurationException for any bad attribute
     */
    public static IdempotencyPolicy from(Idempotent annotation, String operation) {
        Builder b = custom().operation(operation)
                .scope(annotation.scope())
                .key(annotation.key())
                .windowAlignment(annotation.windowAlignment())
                .zone(annotation.zone())
                .ttl(annotation.ttl())
                .lease(annotation.lease())
                .onInProgress(annotation.onInProgress())
                .waitTimeout(annotation.waitTimeout())
                .onStoreError(annotation.onStoreError())
                .noRetryFor(annotation.noRetryFor())
                .version(annotation.version())
                .store(annotation.store())
                .coalesce(annotation.coalesce());
        if (!annotation.window().isEmpty()) {
            b.window(annotation.window());
        }
        if (!annotation.failureTtl().isEmpty()) {
            b.failureTtl(annotation.failureTtl());
        }
        return b.build();
    }

    /** How errors and events name this operation. */
    public String operation() {
        return operation;
    }

    /** The scope template; empty means the operation's name. */
    public String scope() {
        return scope;
    }

    /** Key parameter names with optional property paths; empty means "marked parameters, else all". */
    public List<String> key() {
        return key;
    }

    /** The deduplication window; {@link Duration#ZERO} means none (the ttl is the horizon). */
    public Duration window() {
        return window;
    }

    public WindowAlignment windowAlignment() {
        return windowAlignment;
    }

    public ZoneId zone() {
        return zone;
    }

    public Duration ttl() {
        return ttl;
    }

    public Duration lease() {
        return lease;
    }

    public OnInProgress onInProgress() {
        return onInProgress;
    }

    public Duration waitTimeout() {
        return waitTimeout;
    }

    public OnStoreError onStoreError() {
        return onStoreError;
    }

    /** How long a failure is remembered and replayed; {@link Duration#ZERO} means failures are not remembered. */
    public Duration failureTtl() {
        return failureTtl;
    }

    public List<Class<? extends Throwable>> noRetryFor() {
        return noRetryFor;
    }

    public String version() {
        return version;
    }

    /** The store's name; empty means the engine's default store. */
    public String store() {
        return store;
    }

    public boolean coalesce() {
        return coalesce;
    }

    @Override
    public String toString() {
        return "IdempotencyPolicy[" + operation + ", scope=" + scope + ", window=" + window + " "
                + windowAlignment + ", ttl=" + ttl + ", lease=" + lease + ", onInProgress=" + onInProgress
                + ", waitTimeout=" + waitTimeout + ", onStoreError=" + onStoreError + ", failureTtl=" + failureTtl
                + ", store=" + (store.isEmpty() ? "(default)" : store) + ", coalesce=" + coalesce + "]";
    }

    /** Builds an {@link IdempotencyPolicy}; each setter rejects a bad value at once, naming the attribute. */
    public static final class Builder {
        private String operation = "idempotent operation";
        private String scope = "";
        private List<String> key = List.of();
        private Duration window = Duration.ZERO;
        private WindowAlignment windowAlignment = WindowAlignment.SLIDING;
        private ZoneId zone = ZoneOffset.UTC;
        private Duration ttl = Duration.ofHours(1);
        private Duration lease = Duration.ofSeconds(30);
        private OnInProgress onInProgress = OnInProgress.WAIT;
        private Duration waitTimeout = Duration.ofSeconds(10);
        private OnStoreError onStoreError = OnStoreError.FAIL_CLOSED;
        private Duration failureTtl = Duration.ZERO;
        private List<Class<? extends Throwable>> noRetryFor = List.of();
        private String version = "";
        private String store = "";
        private boolean coalesce = true;

        private Builder() {
        }

        private Builder(IdempotencyPolicy p) {
            operation = p.operation;
            scope = p.scope;
            key = p.key;
            window = p.window;
            windowAlignment = p.windowAlignment;
            zone = p.zone;
            ttl = p.ttl;
            lease = p.lease;
            onInProgress = p.onInProgress;
            waitTimeout = p.waitTimeout;
            onStoreError = p.onStoreError;
            failureTtl = p.failureTtl;
            noRetryFor = p.noRetryFor;
            version = p.version;
            store = p.store;
            coalesce = p.coalesce;
        }

        /** How errors name the operation; set first so that the other setters' errors carry it. */
        public Builder operation(@Nonnull String name) {
            this.operation = Objects.requireNonNull(name, "operation");
            return this;
        }

        public Builder scope(@Nonnull String scope) {
            this.scope = Objects.requireNonNull(scope, "scope").trim();
            return this;
        }

        public Builder key(@Nonnull String... names) {
            for (String name : names) {
                if (name == null || name.isBlank()) {
                    throw error("key", String.valueOf(name), "names an empty parameter");
                }
            }
            this.key = List.of(names);
            return this;
        }

        public Builder window(@Nonnull String window) {
            return window(parse("window", window));
        }

        public Builder window(@Nonnull Duration window) {
            this.window = nonNegative("window", window);
            return this;
        }

        public Builder windowAlignment(@Nonnull WindowAlignment alignment) {
            this.windowAlignment = Objects.requireNonNull(alignment, "windowAlignment");
            return this;
        }

        public Builder zone(@Nonnull String zone) {
            try {
                return zone(ZoneId.of(zone.trim()));
            } catch (DateTimeException e) {
                throw error("zone", zone, "is not a time zone (use a region such as \"Asia/Tokyo\" or an offset"
                        + " such as \"+09:00\")");
            }
        }

        public Builder zone(@Nonnull ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        public Builder ttl(@Nonnull String ttl) {
            return ttl(parse("ttl", ttl));
        }

        public Builder ttl(@Nonnull Duration ttl) {
            this.ttl = positive("ttl", ttl);
            return this;
        }

        public Builder lease(@Nonnull String lease) {
            return lease(parse("lease", lease));
        }

        public Builder lease(@Nonnull Duration lease) {
            this.lease = positive("lease", lease);
            return this;
        }

        public Builder onInProgress(@Nonnull OnInProgress onInProgress) {
            this.onInProgress = Objects.requireNonNull(onInProgress, "onInProgress");
            return this;
        }

        public Builder waitTimeout(@Nonnull String waitTimeout) {
            return waitTimeout(parse("waitTimeout", waitTimeout));
        }

        public Builder waitTimeout(@Nonnull Duration waitTimeout) {
            this.waitTimeout = nonNegative("waitTimeout", waitTimeout);
            return this;
        }

        public Builder onStoreError(@Nonnull OnStoreError onStoreError) {
            this.onStoreError = Objects.requireNonNull(onStoreError, "onStoreError");
            return this;
        }

        public Builder failureTtl(@Nonnull String failureTtl) {
            return failureTtl(parse("failureTtl", failureTtl));
        }

        public Builder failureTtl(@Nonnull Duration failureTtl) {
            this.failureTtl = positive("failureTtl", failureTtl);
            return this;
        }

        @SafeVarargs
        public final Builder noRetryFor(@Nonnull Class<? extends Throwable>... types) {
            List<Class<? extends Throwable>> copy = new java.util.ArrayList<>(types.length);
            for (Class<? extends Throwable> type : types) {
                copy.add(Objects.requireNonNull(type, "noRetryFor"));
            }
            this.noRetryFor = List.copyOf(copy);
            return this;
        }

        public Builder version(@Nonnull String version) {
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        public Builder store(@Nonnull String store) {
            this.store = Objects.requireNonNull(store, "store").trim();
            return this;
        }

        public Builder coalesce(boolean coalesce) {
            this.coalesce = coalesce;
            return this;
        }

        /** The policy; checks the rules that involve several attributes (ttl >= window, FIXED needs a window). */
        public IdempotencyPolicy build() {
            if (ttl.compareTo(window) < 0) {
                throw error("ttl", ttl.toString(), "is shorter than window = \"" + window + "\"; the record must be"
                        + " kept at least as long as duplicates are suppressed");
            }
            if (windowAlignment == WindowAlignment.FIXED && window.isZero()) {
                throw error("windowAlignment", "FIXED", "needs a window, such as window = \"1d\"");
            }
            return new IdempotencyPolicy(this);
        }

        private Duration parse(String attribute, String value) {
            try {
                return DurationParser.parse(Objects.requireNonNull(value, attribute));
            } catch (IllegalArgumentException e) {
                throw error(attribute, value, "is not a duration; write 250ms, 10s, 5m, 1h, 1d or ISO-8601 such"
                        + " as PT5M");
            }
        }

        private Duration positive(String attribute, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw error(attribute, value.toString(), "must be longer than zero");
            }
            return value;
        }

        private Duration nonNegative(String attribute, Duration value) {
            if (value.isNegative()) {
                throw error(attribute, value.toString(), "must not be negative");
            }
            return value;
        }

        private IdempotencyConfigurationException error(String attribute, String value, String problem) {
            return new IdempotencyConfigurationException(operation + ": @Idempotent(" + attribute + " = \""
                    + value + "\") " + problem);
        }
    }
}
