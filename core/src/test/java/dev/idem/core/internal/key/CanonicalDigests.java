package dev.idem.core.internal.key;

import java.util.function.Consumer;

/**
 * The canonical encodings the key package's tests compare, and their SHA-256 digests in hex as the golden tables
 * write them. Each encoding runs on this thread's {@link CanonicalEncoder}, released afterwards.
 */
final class CanonicalDigests {
    private CanonicalDigests() {
    }

    /** {@return the canonical bytes of {@code value}, with no canonicalisers} */
    static byte[] encode(Object value) {
        return encode(value, Canonicalizers.NONE);
    }

    /** {@return the canonical bytes of {@code value} with {@code canonicalizers}} */
    static byte[] encode(Object value, Canonicalizers canonicalizers) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            encoder.using(canonicalizers);
            encoder.encode(value);
            return encoder.toByteArray();
        } finally {
            encoder.release();
        }
    }

    /** {@return the SHA-256 of {@code value}'s canonical bytes ({@link #encode(Object)}) in hex} */
    static String sha256(Object value) {
        return sha256(encode(value));
    }

    /** {@return the SHA-256 of {@code bytes} in hex} */
    static String sha256(byte[] bytes) {
        byte[] out = new byte[Sha256.LENGTH];
        Sha256.digest(Sha256.newDigest(), bytes, bytes.length, out);
        return Sha256.hex(out, Sha256.LENGTH);
    }

    /** {@return the SHA-256 the encoder itself takes of what {@code write} encodes, in hex} */
    static String digestOf(Consumer<CanonicalEncoder> write) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            write.accept(encoder);
            return Sha256.hex(encoder.sha256(), Sha256.LENGTH);
        } finally {
            encoder.release();
        }
    }
}
