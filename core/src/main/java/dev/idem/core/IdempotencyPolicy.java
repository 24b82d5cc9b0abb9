package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.OnAbandoned;
import dev.idem.OnInProgress;
import dev.idem.OnStoreError;
import dev.idem.OnUndecodable;
import dev.idem.StoreTransaction;
import dev.idem.WindowAlignment;
import jakarta.annotation.Nonnull;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;

// More than 500 lines for one idea: an immutable configuration and its builder, as Resilience4j's configs are. Each
// annotation attribute has a field, an accessor and one or two documented setters that refuse bad values
// naming the attribute; the duration grammar (DurationAttributes) and the retry policy (RetryPolicy) are apart.
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
    private final String codec;
    private final OnUndecodable onUndecodable;
    private final RetryPolicy retry;
    private final int maxConcurrent;
    private final StoreTransaction storeTransaction;
    private final OnAbandoned onAbandoned;

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
        this.codec = b.codec;
        this.onUndecodable = b.onUndecodable;
        this.retry = b.retry;
        this.maxConcurrent = b.maxConcurrent;
        this.storeTransaction = b.storeTransaction;
        this.onAbandoned = b.onAbandoned;
    }

    /** {@return a builder starting from the annotation's defaults} */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * Starts a builder from an existing policy, to change some of its attributes.
     *
     * @param base the policy whose attributes the builder starts with
     * @return a builder starting from {@code base}
     */
    public static Builder from(IdempotencyPolicy base) {
        return new Builder(base);
    }

    /** {@return the annotation's defaults: ttl 1h, lease 30s, wait up to 10s, fail closed, coalesce} */
    public static IdempotencyPolicy ofDefaults() {
        return custom().build();
    }

    /**
     * The policy {@code annotation} declares.
     *
     * @param annotation the method's annotation
     * @param operation  how errors name the method, {@code com.acme.Pipeline#generate}
     * @return the validated policy
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
                .coalesce(annotation.coalesce())
                .codec(annotation.codec())
                .onUndecodable(annotation.onUndecodable())
                .retry(RetryPolicy.from(annotation.retry(), operation))
                .maxConcurrent(annotation.maxConcurrent())
                .storeTransaction(annotation.storeTransaction())
                .onAbandoned(annotation.onAbandoned());
        if (!annotation.window().isEmpty()) {
            b.window(annotation.window());
        }
        if (!annotation.failureTtl().isEmpty()) {
            b.failureTtl(annotation.failureTtl());
        }
        return b.build();
    }

    /** {@return how errors and events name this operation} */
    public String operation() {
        return operation;
    }

    /** {@return the scope template; empty means the operation's name} */
    public String scope() {
        return scope;
    }

    /** {@return the key parameters' names with optional property paths; empty means "marked parameters, else all"} */
    public List<String> key() {
        return key;
    }

    /** {@return the deduplication window; {@link Duration#ZERO} means none (the ttl is the horizon)} */
    public Duration window() {
        return window;
    }

    /** {@return whether the window slides or is aligned to calendar buckets} */
    public WindowAlignment windowAlignment() {
        return windowAlignment;
    }

    /** {@return the zone {@code FIXED} windows align to} */
    public ZoneId zone() {
        return zone;
    }

    /** {@return how long a completed record and its result are kept} */
    public Duration ttl() {
        return ttl;
    }

    /** {@return how long an execution owns its key between renewals} */
    public Duration lease() {
        return lease;
    }

    /** {@return what a caller does while another execution runs the key} */
    public OnInProgress onInProgress() {
        return onInProgress;
    }

    /** {@return how long a waiting caller waits for the other execution} */
    public Duration waitTimeout() {
        return waitTimeout;
    }

    /** {@return what happens when the store cannot be reached before the call} */
    public OnStoreError onStoreError() {
        return onStoreError;
    }

    /**
     * {@return how long a failure is remembered and replayed; {@link Duration#ZERO} means failures are not
     * remembered}
     */
    public Duration failureTtl() {
        return failureTtl;
    }

    /** {@return the exceptions recorded as failed for the full ttl and replayed} */
    public List<Class<? extends Throwable>> noRetryFor() {
        return noRetryFor;
    }

    /** {@return the version in every key of the operation} */
    public String version() {
        return version;
    }

    /** {@return the store's name; empty means the engine's default store} */
    public String store() {
        return store;
    }

    /** {@return whether concurrent identical calls in one JVM share one execution} */
    public boolean coalesce() {
        return coalesce;
    }

    /** {@return the result codec's name; empty means the engine's default codec} */
    public String codec() {
        return codec;
    }

    /** {@return what a call does with a stored result the current code cannot decode} */
    public OnUndecodable onUndecodable() {
        return onUndecodable;
    }

    /** {@return how the body is retried inside the claim; {@link RetryPolicy#none()} by default} */
    public RetryPolicy retry() {
        return retry;
    }

    /** {@return the most executions of the scope running at once in this JVM; 0 means no limit} */
    public int maxConcurrent() {
        return maxConcurrent;
    }

    /**
     * {@return whether the claim, the method's writes and the completion are one transaction of the store's
     * database}
     */
    public StoreTransaction storeTransaction() {
        return storeTransaction;
    }

    /** {@return what a call does when it finds its key claimed by an execution whose lease passed} */
    public OnAbandoned onAbandoned() {
        return onAbandoned;
    }

    @Override
    public String toString() {
        return "IdempotencyPolicy[" + operation + ", scope=" + scope + ", window=" + window + " "
                + windowAlignment + ", ttl=" + ttl + ", lease=" + lease + ", onInProgress=" + onInProgress
                + ", waitTimeout=" + waitTimeout + ", onStoreError=" + onStoreError + ", failureTtl=" + failureTtl
                + ", store=" + (store.isEmpty() ? "(default)" : store) + ", coalesce=" + coalesce
                + ", codec=" + (codec.isEmpty() ? "(default)" : codec) + ", onUndecodable=" + onUndecodable
                + (retry.retries() ? ", retry=" + retry : "")
                + (maxConcurrent > 0 ? ", maxConcurrent=" + maxConcurrent : "")
                + ", storeTransaction=" + storeTransaction
                + ", onAbandoned=" + onAbandoned + "]";
    }

    /** Builds an {@link IdempotencyPolicy}; each setter rejects a bad value at once, naming the attribute. */
    public static final class Builder {
        private String operation = "idempotent operation";
        /** How duration attributes refuse a value: one method reference for all (each spins a class when first run). */
        private final DurationAttributes.Refusal refusal = this::error;
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
        private String codec = "";
        private OnUndecodable onUndecodable = OnUndecodable.FAIL;
        private RetryPolicy retry = RetryPolicy.none();
        private int maxConcurrent;
        private StoreTransaction storeTransaction = StoreTransaction.NONE;
        private OnAbandoned onAbandoned = OnAbandoned.TAKE_OVER;

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
            codec = p.codec;
            onUndecodable = p.onUndecodable;
            retry = p.retry;
            maxConcurrent = p.maxConcurrent;
            storeTransaction = p.storeTransaction;
            onAbandoned = p.onAbandoned;
        }

        /**
         * Sets how errors name the operation; set it first so that the other setters' errors carry it.
         *
         * @param name such as {@code com.acme.Pipeline#generate}
         * @return this builder
         */
        public Builder operation(@Nonnull String name) {
            this.operation = Objects.requireNonNull(name, "operation");
            return this;
        }

        /**
         * Sets the scope template, as {@link Idempotent#scope()}.
         *
         * @param scope the template; empty for the operation's name
         * @return this builder
         */
        public Builder scope(@Nonnull String scope) {
            this.scope = Objects.requireNonNull(scope, "scope").trim();
            return this;
        }

        /**
         * Sets the key parameters, as {@link Idempotent#key()}.
         *
         * @param names parameter names with optional property paths
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder key(@Nonnull String... names) {
            for (String name : names) {
                if (name == null || name.isBlank()) {
                    throw error("key", String.valueOf(name), "names an empty parameter");
                }
            }
            this.key = List.of(names);
            return this;
        }

        /**
         * Sets the deduplication window, as {@link Idempotent#window()}.
         *
         * @param window a duration such as {@code 5m}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder window(@Nonnull String window) {
            return window(parse("window", window));
        }

        /**
         * Sets the deduplication window; {@link Duration#ZERO} for none.
         *
         * @param window not negative
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder window(@Nonnull Duration window) {
            this.window = nonNegative("window", window);
            return this;
        }

        /**
         * Sets the window's alignment, as {@link Idempotent#windowAlignment()}.
         *
         * @param alignment sliding or fixed
         * @return this builder
         */
        public Builder windowAlignment(@Nonnull WindowAlignment alignment) {
            this.windowAlignment = Objects.requireNonNull(alignment, "windowAlignment");
            return this;
        }

        /**
         * Sets the zone {@code FIXED} windows align to, as {@link Idempotent#zone()}.
         *
         * @param zone a region such as {@code Asia/Tokyo} or an offset such as {@code +09:00}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder zone(@Nonnull String zone) {
            try {
                return zone(ZoneId.of(zone.trim()));
            } catch (DateTimeException e) {
                throw error("zone", zone, "is not a time zone (use a region such as \"Asia/Tokyo\" or an offset"
                        + " such as \"+09:00\")");
            }
        }

        /**
         * Sets the zone {@code FIXED} windows align to.
         *
         * @param zone the zone
         * @return this builder
         */
        public Builder zone(@Nonnull ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /**
         * Sets how long a completed record is kept, as {@link Idempotent#ttl()}.
         *
         * @param ttl a duration such as {@code 24h}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder ttl(@Nonnull String ttl) {
            return ttl(parse("ttl", ttl));
        }

        /**
         * Sets how long a completed record is kept.
         *
         * @param ttl longer than zero
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder ttl(@Nonnull Duration ttl) {
            this.ttl = positive("ttl", ttl);
            return this;
        }

        /**
         * Sets how long an execution owns its key between renewals, as {@link Idempotent#lease()}.
         *
         * @param lease a duration such as {@code 30s}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder lease(@Nonnull String lease) {
            return lease(parse("lease", lease));
        }

        /**
         * Sets how long an execution owns its key between renewals.
         *
         * @param lease longer than zero
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder lease(@Nonnull Duration lease) {
            this.lease = positive("lease", lease);
            return this;
        }

        /**
         * Sets what a caller does while another execution runs the key, as {@link Idempotent#onInProgress()}.
         *
         * @param onInProgress wait or throw
         * @return this builder
         */
        public Builder onInProgress(@Nonnull OnInProgress onInProgress) {
            this.onInProgress = Objects.requireNonNull(onInProgress, "onInProgress");
            return this;
        }

        /**
         * Sets how long a waiting caller waits, as {@link Idempotent#waitTimeout()}.
         *
         * @param waitTimeout a duration such as {@code 10s}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder waitTimeout(@Nonnull String waitTimeout) {
            return waitTimeout(parse("waitTimeout", waitTimeout));
        }

        /**
         * Sets how long a waiting caller waits.
         *
         * @param waitTimeout not negative
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder waitTimeout(@Nonnull Duration waitTimeout) {
            this.waitTimeout = nonNegative("waitTimeout", waitTimeout);
            return this;
        }

        /**
         * Sets what happens when the store cannot be reached, as {@link Idempotent#onStoreError()}.
         *
         * @param onStoreError fail closed or fail open
         * @return this builder
         */
        public Builder onStoreError(@Nonnull OnStoreError onStoreError) {
            this.onStoreError = Objects.requireNonNull(onStoreError, "onStoreError");
            return this;
        }

        /**
         * Sets how long a failure is remembered and replayed, as {@link Idempotent#failureTtl()}.
         *
         * @param failureTtl a duration such as {@code 10m}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder failureTtl(@Nonnull String failureTtl) {
            return failureTtl(parse("failureTtl", failureTtl));
        }

        /**
         * Sets how long a failure is remembered and replayed.
         *
         * @param failureTtl longer than zero
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder failureTtl(@Nonnull Duration failureTtl) {
            this.failureTtl = positive("failureTtl", failureTtl);
            return this;
        }

        /**
         * Sets the exceptions recorded as failed for the full ttl and replayed, as {@link Idempotent#noRetryFor()}.
         *
         * @param types exception types
         * @return this builder
         */
        @SafeVarargs
        public final Builder noRetryFor(@Nonnull Class<? extends Throwable>... types) {
            List<Class<? extends Throwable>> copy = new java.util.ArrayList<>(types.length);
            for (Class<? extends Throwable> type : types) {
                copy.add(Objects.requireNonNull(type, "noRetryFor"));
            }
            this.noRetryFor = List.copyOf(copy);
            return this;
        }

        /**
         * Sets the version in every key, as {@link Idempotent#version()}.
         *
         * @param version any text; empty by default
         * @return this builder
         */
        public Builder version(@Nonnull String version) {
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * Sets the store by name, as {@link Idempotent#store()}.
         *
         * @param store a store's name; empty for the engine's default
         * @return this builder
         */
        public Builder store(@Nonnull String store) {
            this.store = Objects.requireNonNull(store, "store").trim();
            return this;
        }

        /**
         * Sets whether concurrent identical calls in one JVM share one execution, as {@link Idempotent#coalesce()}.
         *
         * @param coalesce true to share
         * @return this builder
         */
        public Builder coalesce(boolean coalesce) {
            this.coalesce = coalesce;
            return this;
        }

        /**
         * Sets the result codec by name, as {@link Idempotent#codec()}.
         *
         * @param codec a codec's name such as {@code json}; empty for the engine's default
         * @return this builder
         */
        public Builder codec(@Nonnull String codec) {
            this.codec = Objects.requireNonNull(codec, "codec").trim();
            return this;
        }

        /**
         * Sets what a call does with a stored result the current code cannot decode, as
         * {@link Idempotent#onUndecodable()}.
         *
         * @param onUndecodable FAIL (the default) or RUN_AGAIN
         * @return this builder
         */
        public Builder onUndecodable(@Nonnull OnUndecodable onUndecodable) {
            this.onUndecodable = Objects.requireNonNull(onUndecodable, "onUndecodable");
            return this;
        }

        /**
         * Sets how the body is retried inside the claim, as {@link Idempotent#retry()}.
         *
         * @param retry the retry policy; {@link RetryPolicy#none()} for no retry
         * @return this builder
         */
        public Builder retry(@Nonnull RetryPolicy retry) {
            this.retry = Objects.requireNonNull(retry, "retry");
            return this;
        }

        /**
         * Sets the most executions of the scope running at once in this JVM, as {@link Idempotent#maxConcurrent()}.
         *
         * @param maxConcurrent at least 1, or 0 for no limit
         * @return this builder
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public Builder maxConcurrent(int maxConcurrent) {
            if (maxConcurrent < 0) {
                throw new IdempotencyConfigurationException(operation + ": @Idempotent(maxConcurrent = "
                        + maxConcurrent + ") must be at least 1, or 0 for no limit");
            }
            this.maxConcurrent = maxConcurrent;
            return this;
        }

        /**
         * Sets whether the claim, the method's writes and the completion are one transaction of the store's
         * database, as {@link Idempotent#storeTransaction()}. Whether the store supports it is checked when the
         * operation is planned.
         *
         * @param storeTransaction NONE (the default), REQUIRED or MANDATORY
         * @return this builder
         */
        public Builder storeTransaction(@Nonnull StoreTransaction storeTransaction) {
            this.storeTransaction = Objects.requireNonNull(storeTransaction, "storeTransaction");
            return this;
        }

        /**
         * Sets what a call does when it finds its key claimed by an execution whose lease passed, as
         * {@link Idempotent#onAbandoned()}.
         *
         * @param onAbandoned TAKE_OVER (the default), RECONCILE or FAIL
         * @return this builder
         */
        public Builder onAbandoned(@Nonnull OnAbandoned onAbandoned) {
            this.onAbandoned = Objects.requireNonNull(onAbandoned, "onAbandoned");
            return this;
        }

        /**
         * Builds the policy, checking the rules that involve several attributes (ttl &gt;= window, FIXED needs a
         * window, no retried type that {@code noRetryFor} excludes).
         *
         * @return the policy
         * @throws IdempotencyConfigurationException naming the operation, the attribute and the value
         */
        public IdempotencyPolicy build() {
            if (ttl.compareTo(window) < 0) {
                throw error("ttl", ttl.toString(), "is shorter than window = \"" + window + "\"; the record must be"
                        + " kept at least as long as duplicates are suppressed");
            }
            if (windowAlignment == WindowAlignment.FIXED && window.isZero()) {
                throw error("windowAlignment", "FIXED", "needs a window, such as window = \"1d\"");
            }
            for (Class<? extends Throwable> retried : retry.on()) {
                for (Class<? extends Throwable> excluded : noRetryFor) {
                    if (excluded.isAssignableFrom(retried)) {
                        throw new IdempotencyConfigurationException(operation + ": @Idempotent(retry = @Retry(on = "
                                + retried.getName() + ".class)) is never retried, because noRetryFor lists "
                                + excluded.getName() + "; list it in one of them");
                    }
                }
            }
            return new IdempotencyPolicy(this);
        }

        private Duration parse(String attribute, String value) {
            return DurationAttributes.parse(refusal, attribute, value);
        }

        private Duration positive(String attribute, Duration value) {
            return DurationAttributes.positive(refusal, attribute, value);
        }

        private Duration nonNegative(String attribute, Duration value) {
            return DurationAttributes.nonNegative(refusal, attribute, value);
        }

        private IdempotencyConfigurationException error(String attribute, String value, String problem) {
            return new IdempotencyConfigurationException(operation + ": @Idempotent(" + attribute + " = \""
                    + value + "\") " + problem);
        }
    }
}
