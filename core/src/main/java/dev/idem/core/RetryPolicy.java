package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Retry;
import jakarta.annotation.Nonnull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How an operation's body is retried inside its one claim: the parsed, validated form of {@link Retry}. Immutable.
 *
 * <p>Built by {@link #custom()}, {@link #from(RetryPolicy)}, {@link #from(Retry, String)} or {@link #none()}; every
 * refusal is an {@link IdempotencyConfigurationException} naming the operation (when known), the attribute and the
 * value. The pause after the {@code n}-th failed attempt is drawn uniformly from
 * {@code [0, min(cap, base * 2^(n-1))]}, and is at least the failure's {@code Retry-After} cut to
 * {@link #maxRetryAfter()}.
 */
public final class RetryPolicy {
    private static final RetryPolicy NONE = new Builder().maxAttempts(1).build();

    private final int maxAttempts;
    private final Duration base;
    private final Duration cap;
    private final Duration maxRetryAfter;
    private final List<Class<? extends Throwable>> on;

    private RetryPolicy(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.base = b.base;
        this.cap = b.cap;
        this.maxRetryAfter = b.maxRetryAfter != null ? b.maxRetryAfter : b.cap;
        this.on = List.copyOf(b.on);
    }

    /** {@return the policy that never retries: one attempt} */
    public static RetryPolicy none() {
        return NONE;
    }

    /** {@return a builder starting from {@link Retry}'s defaults (3 attempts, base 200ms, cap 10s)} */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * Starts a builder from an existing policy, to change some of its attributes.
     *
     * @param base the policy whose attributes the builder starts with
     * @return a builder starting from {@code base}
     */
    public static Builder from(@Nonnull RetryPolicy base) {
        return new Builder(base);
    }

    /**
     * The policy {@code annotation} declares.
     *
     * @param annotation the {@code retry} attribute of a method's {@code @Idempotent}
     * @param operation  how errors name the method, {@code com.acme.Pipeline#generate}
     * @return the validated policy
     * @throws IdempotencyConfigurationException for any bad attribute, naming the method and the attribute
     */
    public static RetryPolicy from(@Nonnull Retry annotation, @Nonnull String operation) {
        Builder b = new Builder();
        b.owner = operation + ": @Idempotent(retry = @Retry(";
        b.maxAttempts(annotation.maxAttempts()).base(annotation.base()).cap(annotation.cap()).on(annotation.on());
        if (!annotation.maxRetryAfter().isEmpty()) {
            b.maxRetryAfter(annotation.maxRetryAfter());
        }
        return b.build();
    }

    /** {@return whether a failed attempt may be followed by another: more than one attempt} */
    public boolean retries() {
        return maxAttempts > 1;
    }

    /** {@return how many times the body may run in all, the first attempt included} */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** {@return the largest pause after the first failed attempt; it doubles after each further one} */
    public Duration base() {
        return base;
    }

    /** {@return the largest pause ever drawn from} */
    public Duration cap() {
        return cap;
    }

    /** {@return the longest {@code Retry-After} honoured; a longer one is cut to it} */
    public Duration maxRetryAfter() {
        return maxRetryAfter;
    }

    /** {@return the exception types retried; empty means the engine's {@link RetryClassifier}s decide} */
    public List<Class<? extends Throwable>> on() {
        return on;
    }

    @Override
    public String toString() {
        return retries() ? "RetryPolicy[maxAttempts=" + maxAttempts + ", base=" + base + ", cap=" + cap
                + ", maxRetryAfter=" + maxRetryAfter + ", on=" + on + "]" : "RetryPolicy[none]";
    }

    /** Builds a {@link RetryPolicy}; each setter rejects a bad value at once, naming the attribute and the value. */
    public static final class Builder {
        /** How errors begin; the annotation path names the method. */
        private String owner = "@Retry(";
        /** How duration attributes refuse a value: one method reference for all (each spins a class when first run). */
        private final DurationAttributes.Refusal refusal = this::error;
        private int maxAttempts = 3;
        private Duration base = Duration.ofMillis(200);
        private Duration cap = Duration.ofSeconds(10);
        private Duration maxRetryAfter; // null: the cap
        private List<Class<? extends Throwable>> on = List.of();

        private Builder() {
        }

        private Builder(RetryPolicy p) {
            maxAttempts = p.maxAttempts;
            base = p.base;
            cap = p.cap;
            maxRetryAfter = p.maxRetryAfter;
            on = p.on;
        }

        /**
         * Sets how many times the body may run in all.
         *
         * @param maxAttempts at least 1; 1 means no retry
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw error("maxAttempts", String.valueOf(maxAttempts), "must be at least 1 (1 means no retry)");
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * Sets the back-off's base.
         *
         * @param base a duration such as {@code 1s}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public Builder base(@Nonnull String base) {
            return base(parse("base", base));
        }

        /**
         * Sets the back-off's base.
         *
         * @param base longer than zero
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public Builder base(@Nonnull Duration base) {
            this.base = DurationAttributes.positive(refusal, "base", base);
            return this;
        }

        /**
         * Sets the largest pause.
         *
         * @param cap a duration such as {@code 20s}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public Builder cap(@Nonnull String cap) {
            return cap(parse("cap", cap));
        }

        /**
         * Sets the largest pause.
         *
         * @param cap longer than zero, and at least the base (checked by {@link #build()})
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public Builder cap(@Nonnull Duration cap) {
            this.cap = DurationAttributes.positive(refusal, "cap", cap);
            return this;
        }

        /**
         * Sets the longest {@code Retry-After} honoured.
         *
         * @param maxRetryAfter a duration such as {@code 1m}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public Builder maxRetryAfter(@Nonnull String maxRetryAfter) {
            return maxRetryAfter(parse("maxRetryAfter", maxRetryAfter));
        }

        /**
         * Sets the longest {@code Retry-After} honoured.
         *
         * @param maxRetryAfter not negative; zero ignores every {@code Retry-After}
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public Builder maxRetryAfter(@Nonnull Duration maxRetryAfter) {
            this.maxRetryAfter = DurationAttributes.nonNegative(refusal, "maxRetryAfter", maxRetryAfter);
            return this;
        }

        /**
         * Sets the exception types retried, with their subtypes; empty lets the engine's {@link RetryClassifier}s
         * decide.
         *
         * @param types exception types; never an {@link Error}, which is never retried
         * @return this builder
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        @SafeVarargs
        public final Builder on(@Nonnull Class<? extends Throwable>... types) {
            List<Class<? extends Throwable>> copy = new ArrayList<>(types.length);
            for (Class<? extends Throwable> type : types) {
                Objects.requireNonNull(type, "on");
                if (Error.class.isAssignableFrom(type)) {
                    throw error("on", type.getName() + ".class", "lists an Error; an Error belongs to the JVM that"
                            + " met it and is never retried");
                }
                copy.add(type);
            }
            this.on = List.copyOf(copy);
            return this;
        }

        /**
         * Builds the policy, checking that the cap is at least the base.
         *
         * @return the policy
         * @throws IdempotencyConfigurationException naming the attribute and the value
         */
        public RetryPolicy build() {
            if (cap.compareTo(base) < 0) {
                throw error("cap", cap.toString(), "is shorter than base = \"" + base + "\"; the cap bounds the"
                        + " doubling pauses, so it must be at least the first");
            }
            return new RetryPolicy(this);
        }

        private Duration parse(String attribute, String value) {
            return DurationAttributes.parse(refusal, attribute, value);
        }

        private IdempotencyConfigurationException error(String attribute, String value, String problem) {
            boolean quoted = !value.endsWith(".class") && !attribute.equals("maxAttempts");
            String shown = quoted ? "\"" + value + "\"" : value;
            return new IdempotencyConfigurationException(owner + attribute + " = " + shown
                    + (owner.startsWith("@Retry") ? ") " : ")) ") + problem);
        }
    }
}
