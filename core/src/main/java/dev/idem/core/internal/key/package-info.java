/**
 * Deriving a call's idempotency key from its arguments: the canonical encoding of values ({@link
 * dev.idem.core.internal.key.CanonicalEncoder}, the byte format, with {@link dev.idem.core.internal.key.ValueKind},
 * {@link dev.idem.core.internal.key.TypeEntry} and {@link dev.idem.core.internal.key.ObjectLayout} describing types,
 * {@link dev.idem.core.internal.key.ObjectWriter} and {@link dev.idem.core.internal.key.FlatWriter} writing objects,
 * {@link dev.idem.core.internal.key.EnclosingValues} refusing cycles, {@link
 * dev.idem.core.internal.key.ConstantBytes} for what every call writes unchanged, and the application's {@link
 * dev.idem.core.internal.key.Canonicalizers}); the space an encoding is written into and hashed ({@link
 * dev.idem.core.internal.key.EncodingBuffer}, {@link dev.idem.core.internal.key.EncodingDigest}, reused by each
 * thread through {@link dev.idem.core.internal.key.PerThreadEncoder}); where a key's values come from ({@link
 * dev.idem.core.internal.key.KeySource}, {@link dev.idem.core.internal.key.PropertyPath}, {@link
 * dev.idem.core.internal.key.ScopeTemplate}), the digest ({@link dev.idem.core.internal.key.Sha256}) and the key
 * itself ({@link dev.idem.core.internal.key.CallKey}). Not API.
 *
 * <p>Depends only on the public API ({@code dev.idem}, {@code dev.idem.core}): nothing else in
 * {@code dev.idem.core.internal}. Keys must stay the same bytes from release to release, so they are derived here
 * and nowhere else.
 */
package dev.idem.core.internal.key;
