package dev.idem.codec;

import jakarta.annotation.Nonnull;

import java.lang.reflect.Type;

/**
 * A way to store results, known by name ({@code idem.codec=json}, {@code @Idempotent(codec = "java")}) and found with
 * {@link java.util.ServiceLoader}. Idem ships {@code java} (Java serialization behind an allow-list, in the core) and
 * {@code json} (Jackson, in {@code idem-codec-jackson}).
 *
 * <p>Every stored result begins with the codec's {@link #name()} and {@link #formatVersion()}, written and checked by
 * the engine, so bytes of another codec or of a newer format are refused with an error naming the key and both
 * codecs, never misread. A codec only ever sees bodies that it wrote.
 */
public interface ResultCodecProvider {

    /**
     * The name users configure and the id every stored result begins with: 1 to 16 characters among lower-case
     * letters, digits and {@code -}. Two providers of one name: the one with the higher {@link #priority()} wins.
     *
     * @return the codec's name, such as {@code json}
     */
    @Nonnull
    String name();

    /**
     * The version of this codec's byte format, from 1 to 255, stored with every result. Raise it when a new release
     * writes bodies an older one cannot read; {@link ResultCodec#decode} is handed the version a body was written
     * with, never a newer one than this.
     *
     * @return the current format version
     */
    int formatVersion();

    /**
     * Which codec is the default when none is configured: the highest priority among the providers on the class
     * path. The core's {@code java} codec has priority 0; {@code json} has 100, so adding its module makes it the
     * default.
     *
     * @return this provider's priority
     */
    default int priority() {
        return 0;
    }

    /**
     * A codec for the results of one method, whose declared result type (with {@code CompletionStage} and
     * {@code Optional} unwrapped) is {@code type}. Everything the codec can check about the type it checks here,
     * through type arguments, array components, record components and fields, so that a result that cannot be
     * stored is a configuration error before the method ever runs.
     *
     * @param type   the declared result type, generic ({@code List<Topic>}) where the method declares one
     * @param loader the class loader of the method's class, where the classes a result decodes into are resolved
     * @return a codec bound to {@code type}; thread-safe
     * @throws UnsupportedResultTypeException saying which part of the type cannot be stored, and how to fix it
     */
    @Nonnull
    ResultCodec forType(@Nonnull Type type, @Nonnull ClassLoader loader) throws UnsupportedResultTypeException;
}
