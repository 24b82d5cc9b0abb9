package dev.idem.store.jdbc;

import dev.idem.store.KeyHasher;
import jakarta.annotation.Nullable;

/**
 * The key's row identity: {@link KeyHasher}'s SHA-256 of its UTF-8 bytes, hashed on each thread with a hasher of its
 * own that remembers the last key and its hash, so a fresh call's claim and its completion, which run on the same
 * thread one after the other, hash the key once.
 */
final class KeyHashes {
    private static final ThreadLocal<LastKeyHash> HASHER = ThreadLocal.withInitial(LastKeyHash::new);

    private KeyHashes() {
    }

    /**
     * The hash of {@code key}. Never modified by its callers, which only bind it: the same array may be handed out
     * again for the same key.
     */
    static byte[] of(String key) {
        return HASHER.get().hash(key);
    }

    /** One thread's hasher and the last key it hashed. */
    private static final class LastKeyHash {
        private final KeyHasher hasher = new KeyHasher();
        @Nullable
        private String lastKey;
        private byte[] lastHash = new byte[0];

        byte[] hash(String key) {
            if (!key.equals(lastKey)) {
                lastHash = hasher.hash(key);
                lastKey = key;
            }
            return lastHash;
        }
    }
}
