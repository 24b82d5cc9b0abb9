package dev.idem.store;

import jakarta.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The SHA-256 of an idempotency key's UTF-8 bytes: how the stores name a key's stored record (the jdbc store's row
 * identity, the redis store's key names), so every store derives it alike.
 *
 * <p>Not thread-safe: a store keeps one per thread (beside whatever it remembers of the last key it named), so no
 * digest is made per call. Each hasher's digest is cloned from one looked up once, where the security provider allows
 * (the JDK's does), so a new thread does not search the providers again.
 */
public final class KeyHasher {
    /** The length of a hash in bytes. */
    public static final int LENGTH = 32;

    @Nullable
    private static final MessageDigest PROTOTYPE = cloneablePrototype();

    private final MessageDigest digest;

    /** Creates a hasher with a digest of its own. */
    public KeyHasher() {
        digest = newDigest();
    }

    /**
     * The SHA-256 of {@code key}'s UTF-8 bytes.
     *
     * @param key an idempotency key
     * @return a new array of {@link #LENGTH} bytes
     */
    public byte[] hash(String key) {
        return hash(key.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The SHA-256 of {@code utf8Key}, a key's UTF-8 bytes (for a store that sends those bytes too).
     *
     * @param utf8Key the key's UTF-8 bytes, not changed
     * @return a new array of {@link #LENGTH} bytes
     */
    public byte[] hash(byte[] utf8Key) {
        return digest.digest(utf8Key); // digest() also resets the digest for the next key
    }

    private static MessageDigest newDigest() {
        if (PROTOTYPE != null) {
            try {
                return (MessageDigest) PROTOTYPE.clone();
            } catch (CloneNotSupportedException e) {
                // a provider whose digests do not clone: look one up, as below
            }
        }
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }

    /** {@return a SHA-256 digest that clones, never used itself; null where the provider's digests do not clone} */
    @Nullable
    private static MessageDigest cloneablePrototype() {
        try {
            MessageDigest prototype = MessageDigest.getInstance("SHA-256");
            prototype.clone();
            return prototype;
        } catch (NoSuchAlgorithmException | CloneNotSupportedException e) {
            return null;
        }
    }
}
