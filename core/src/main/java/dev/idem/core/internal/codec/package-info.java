/**
 * Results and failures as the bytes of a stored record: the codecs found on the class path ({@link
 * dev.idem.core.internal.codec.Codecs}), the core's Java-serialization codec and the allow-list it decodes with,
 * the header that names a record's codec and format ({@link dev.idem.core.internal.codec.StoredResults}), recorded
 * failures ({@link dev.idem.core.internal.codec.FailureCodec}) and the failures that are never recorded because they
 * belong to the execution that met them ({@link dev.idem.core.internal.codec.PersonalFailures}). Not API.
 *
 * <p>May depend on the public API and the codec SPI ({@code dev.idem.codec}) and on {@code internal.key} (for
 * {@code ValueKind}'s notion of a JDK type); it knows nothing of {@code internal.plan} or
 * {@code internal.call}.
 */
package dev.idem.core.internal.codec;
