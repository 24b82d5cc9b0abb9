package dev.idem.core.internal.key;

import java.security.DigestException;
import java.security.MessageDigest;

/**
 * SHA-256 of an encoding, and of a prefix of it marked before the encoding goes on: a key's encoding begins with
 * its payload's when the two are the same parameters, so one encoding gives both digests. The digest of the whole
 * is written into an array this object reuses; no call allocates unless a prefix is long (below).
 *
 * <p>A short prefix is hashed again when its digest is asked for. From {@value #PREFIX_SNAPSHOT_THRESHOLD} bytes on,
 * the prefix enters the running SHA-256 when it is marked and its digest is taken from a copy of that state, so a
 * long argument is hashed once (copying the state allocates; hashing a short prefix again is cheaper than that).
 *
 * <p>Mutable, confined to the thread of the encoder that holds it. {@link #reset()} leaves it as new, also when an
 * encoding failed between marking a prefix and taking the digest.
 */
final class EncodingDigest {
    static final int PREFIX_SNAPSHOT_THRESHOLD = 1024;

    private final MessageDigest sha256 = Sha256.newDigest();
    private final byte[] digest = new byte[Sha256.LENGTH];
    /** The marked prefix's length, or -1. */
    private int prefixLength = -1;
    /** The long prefix's digest, taken when it was marked; null for no prefix or a short one. */
    private byte[] prefixDigest;
    /** Whether bytes entered {@link #sha256} that no digest has consumed yet (only a long prefix). */
    private boolean started;

    /** SHA-256 of {@code bytes[0..length)}, into an array this object reuses (valid until its next use). */
    byte[] of(byte[] bytes, int length) {
        // The common case first and small, so that the JIT inlines it into the key's derivation.
        if (prefixDigest == null) {
            Sha256.digest(sha256, bytes, length, digest);
            return digest;
        }
        return afterLongPrefix(bytes, length);
    }

    /** {@link #of} when {@link #markPrefix} already fed a long prefix of {@code bytes} to the digest. */
    private byte[] afterLongPrefix(byte[] bytes, int length) {
        sha256.update(bytes, prefixLength, length - prefixLength);
        try {
            sha256.digest(digest, 0, Sha256.LENGTH);
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
        started = false;
        return digest;
    }

    /** Marks {@code bytes[0..length)} as the prefix whose digest {@link #prefix} gives. */
    void markPrefix(byte[] bytes, int length) {
        prefixLength = length;
        if (length >= PREFIX_SNAPSHOT_THRESHOLD) {
            sha256.update(bytes, 0, length);
            started = true;
            try {
                MessageDigest snapshot = (MessageDigest) sha256.clone();
                prefixDigest = snapshot.digest();
            } catch (CloneNotSupportedException e) {
                sha256.reset(); // a provider that cannot copy its state: hash the prefix again when asked
                started = false;
                prefixDigest = null;
            }
        }
    }

    /** SHA-256 of the marked prefix, whose bytes are still {@code bytes[0..prefixLength)}, as a new array. */
    byte[] prefix(byte[] bytes) {
        if (prefixLength < 0) {
            throw new IllegalStateException("no prefix marked");
        }
        if (prefixDigest != null) {
            return prefixDigest.clone();
        }
        byte[] out = new byte[Sha256.LENGTH];
        Sha256.digest(sha256, bytes, prefixLength, out); // a short prefix never entered the digest: hash it now
        return out;
    }

    /** Forgets the prefix when the encoding went back to fewer than its bytes. */
    void rewoundTo(int length) {
        if (length < prefixLength) {
            forgetPrefix();
            sha256.reset();
            started = false;
        }
    }

    /** Forgets the prefix and whatever entered the running digest. */
    void reset() {
        if (started) {
            sha256.reset(); // an encoding that failed between markPrefix and the digest left bytes in it
            started = false;
        }
        forgetPrefix();
    }

    private void forgetPrefix() {
        prefixLength = -1;
        prefixDigest = null;
    }
}
