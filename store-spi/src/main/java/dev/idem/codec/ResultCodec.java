package dev.idem.codec;

import jakarta.annotation.Nonnull;
import jakarta.annotation.Nullable;

/**
 * Encodes the results of one method (one declared type) into the body of a stored record, and decodes them back.
 * Made by {@link ResultCodecProvider#forType}; thread-safe.
 *
 * <p>Stored bytes are data, not code: {@link #decode} never instantiates a class outside the declared type (its
 * type arguments, components and fields) and the JDK's value types, whatever the bytes say, so a poisoned store
 * cannot run code in the application.
 */
public interface ResultCodec {

    /**
     * The body of a stored result. The engine writes the codec's name and format version in front of it.
     *
     * @param value the method's result, possibly null; for a {@code CompletionStage} or {@code Optional} method, its
     *              content
     * @return the body, a new array the caller may keep
     * @throws Exception when the value cannot be encoded (a runtime subtype the declared type did not show); the
     *                   engine then records that the execution succeeded but its result could not be stored
     */
    @Nonnull
    byte[] encode(@Nullable Object value) throws Exception;

    /**
     * The value a body encodes.
     *
     * @param body          the bytes after the engine's header, as {@link #encode} wrote them
     * @param formatVersion the format version the body was written in, at most the provider's current one
     * @return the value, an instance of the declared type or null
     * @throws Exception when the body is corrupt or names anything outside the declared type; the engine reports it
     *                   with the key, naming the codec
     */
    @Nullable
    Object decode(@Nonnull byte[] body, int formatVersion) throws Exception;
}
