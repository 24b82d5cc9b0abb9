package dev.idem.core;

/**
 * Gives a type that the canonical encoding cannot handle (or should handle differently) a canonical stand-in: the
 * value returned is encoded in place of the argument. Register one with
 * {@link IdemSettings.Builder#canonicalizer(KeyCanonicalizer)} or list it in
 * {@code META-INF/services/dev.idem.core.KeyCanonicalizer}.
 *
 * <p>The stand-in must be deterministic: equal arguments give equal stand-ins on every JVM (an id, a normalised
 * string, a record of the fields that matter), never an identity hash or a timestamp.
 *
 * @param <T> the type it handles; it also handles subtypes unless a closer canonicaliser is registered
 */
public interface KeyCanonicalizer<T> {

    /** {@return the type handled} */
    Class<T> type();

    /**
     * Gives the stand-in encoded in place of {@code value}.
     *
     * @param value a key argument of the handled type
     * @return a deterministic, encodable stand-in for {@code value}
     */
    Object canonicalize(T value);
}
