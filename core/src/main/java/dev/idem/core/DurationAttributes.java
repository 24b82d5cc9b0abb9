package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.DurationGrammar;

import java.time.Duration;
import java.util.Objects;

/**
 * The checks every duration attribute of the policies' builders makes, each refusal phrased once; the builder says
 * how its errors name the operation and the attribute.
 */
final class DurationAttributes {
    /** How a builder turns a refusal into its error. */
    @FunctionalInterface
    interface Refusal {
        IdempotencyConfigurationException of(String attribute, String value, String problem);
    }

    private DurationAttributes() {
    }

    static Duration parse(Refusal refusal, String attribute, String value) {
        try {
            return DurationGrammar.parse(Objects.requireNonNull(value, attribute));
        } catch (IllegalArgumentException e) {
            throw refusal.of(attribute, value, "is not a duration; write " + DurationGrammar.ACCEPTED_FORMS);
        }
    }

    static Duration positive(Refusal refusal, String attribute, Duration value) {
        if (Objects.requireNonNull(value, attribute).isNegative() || value.isZero()) {
            throw refusal.of(attribute, value.toString(), "must be longer than zero");
        }
        return value;
    }

    static Duration nonNegative(Refusal refusal, String attribute, Duration value) {
        if (Objects.requireNonNull(value, attribute).isNegative()) {
            throw refusal.of(attribute, value.toString(), "must not be negative");
        }
        return value;
    }
}
