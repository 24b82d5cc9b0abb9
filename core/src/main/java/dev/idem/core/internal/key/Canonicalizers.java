package dev.idem.core.internal.key;

import dev.idem.core.KeyCanonicalizer;

import java.util.List;

/**
 * The canonicalisers an engine was configured with, matched by exact class first and then by assignability, so a
 * registered interface covers its implementations. The match per class is computed once.
 */
public final class Canonicalizers {
    static final Canonicalizers NONE = new Canonicalizers(List.of());
    private static final KeyCanonicalizer<Object> NO_MATCH = new KeyCanonicalizer<>() {
        @Override
        public Class<Object> type() {
            return Object.class;
        }

        @Override
        public Object canonicalize(Object value) {
            return value;
        }
    };

    private final List<KeyCanonicalizer<?>> registered;
    private final boolean empty;
    private final ClassValue<KeyCanonicalizer<Object>> byClass = new ClassValue<>() {
        @Override
        @SuppressWarnings("unchecked")
        protected KeyCanonicalizer<Object> computeValue(Class<?> type) {
            for (KeyCanonicalizer<?> c : registered) {
                if (c.type() == type) {
                    return (KeyCanonicalizer<Object>) c;
                }
            }
            for (KeyCanonicalizer<?> c : registered) {
                if (c.type().isAssignableFrom(type)) {
                    return (KeyCanonicalizer<Object>) c;
                }
            }
            return NO_MATCH;
        }
    };

    private Canonicalizers(List<KeyCanonicalizer<?>> registered) {
        this.registered = registered;
        this.empty = registered.isEmpty();
    }

    public static Canonicalizers of(List<KeyCanonicalizer<?>> registered) {
        return registered.isEmpty() ? NONE : new Canonicalizers(List.copyOf(registered));
    }

    boolean isEmpty() {
        return empty;
    }

    /** The value to encode in place of {@code value}; {@code value} itself when no canonicaliser matches. */
    Object canonicalize(Object value) {
        KeyCanonicalizer<Object> c = byClass.get(value.getClass());
        return c == NO_MATCH ? value : c.canonicalize(value);
    }
}
