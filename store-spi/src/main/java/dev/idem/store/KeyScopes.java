package dev.idem.store;

/**
 * How stores and the engine name a key in messages and logs: by its namespace and scope, never by its hash, since
 * the hash is derived from the callers' arguments.
 */
public final class KeyScopes {
    private static final String PREFIX = "idem:";

    private KeyScopes() {
    }

    /**
     * Names {@code key} for a message.
     *
     * @param key an engine key {@code idem:{namespace}:{scope}:{hash}}, any other key, or empty for none
     * @return {@code "scope {namespace}:{scope}"} for an engine key (a scope may hold colons itself), {@code "the
     *         store"} for the empty key, else {@code "a key outside any scope"}
     */
    public static String describe(String key) {
        if (key.isEmpty()) {
            return "the store";
        }
        int hash = key.lastIndexOf(':'); // the hash is the last part
        if (key.startsWith(PREFIX) && hash > PREFIX.length()
                && key.substring(PREFIX.length(), hash).indexOf(':') > 0) {
            return "scope " + key.substring(PREFIX.length(), hash);
        }
        return "a key outside any scope";
    }
}
