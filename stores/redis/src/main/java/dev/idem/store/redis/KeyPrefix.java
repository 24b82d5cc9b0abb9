package dev.idem.store.redis;

import dev.idem.IdempotencyConfigurationException;
import jakarta.annotation.Nullable;

/**
 * The rule for a store's key prefix ({@link RedisIdempotencyStore.Builder#prefix(String)}, {@code idem.redis.prefix}):
 * 1 to {@value RedisIdempotencyStore#MAX_PREFIX_LENGTH} ASCII letters, digits and {@code . _ / -}. Why so narrow: the
 * prefix begins every Redis key and channel of the store, before the hash tag {@code {b}}, so a brace would change
 * which part of a name Redis Cluster hashes (a record and its counter could land in different slots); an operator
 * writes it into ACL patterns ({@code ~prefix:*}), where {@code * ? [ ] \} are glob characters that would widen the
 * pattern; a {@code :} is the separator the store puts after the prefix, so the pattern {@code ~a:*} of prefix
 * {@code a} would also cover every key and channel of another application's prefix {@code a:b}; whitespace and
 * control characters are typing mistakes in a properties file; and every record carries its length, so it stays
 * short.
 */
final class KeyPrefix {
    private KeyPrefix() {
    }

    /**
     * {@code prefix}, if it follows the rule.
     *
     * @throws IdempotencyConfigurationException naming the property, the value and its first wrong character otherwise
     */
    static String valid(@Nullable String prefix) {
        String rule = ": a prefix is 1 to " + RedisIdempotencyStore.MAX_PREFIX_LENGTH + " ASCII letters, digits and"
                + " . _ / -, such as orders or billing.idem";
        if (prefix == null || prefix.isEmpty()) {
            throw new IdempotencyConfigurationException("idem.redis.prefix is empty" + rule);
        }
        String shown = "idem.redis.prefix = \"" + prefix + "\"";
        if (prefix.length() > RedisIdempotencyStore.MAX_PREFIX_LENGTH) {
            throw new IdempotencyConfigurationException(shown + " is " + prefix.length() + " characters long" + rule);
        }
        for (int at = 0; at < prefix.length(); at++) {
            char c = prefix.charAt(at);
            if (!allowed(c)) {
                String shownChar = Character.isISOControl(c) || c > '~' ? String.format("U+%04X", (int) c)
                        : "'" + c + "'";
                throw new IdempotencyConfigurationException(shown + " has " + shownChar + " at " + at + why(c) + rule);
            }
        }
        return prefix;
    }

    private static boolean allowed(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "._/-".indexOf(c) >= 0;
    }

    private static String why(char c) {
        if (c == '{' || c == '}') {
            return " (a brace would change the Cluster hash tag of the store's keys)";
        }
        if ("*?[]\\".indexOf(c) >= 0) {
            return " (a glob character would widen the ACL key pattern prefix:*)";
        }
        if (c == ':') {
            return " (':' separates the prefix from the rest of each key, so the ACL pattern <prefix>:* of a shorter"
                    + " prefix would also cover this one's keys and channels)";
        }
        return Character.isWhitespace(c) ? " (whitespace)" : "";
    }
}
