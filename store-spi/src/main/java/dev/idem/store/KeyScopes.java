package dev.idem.store;

/**
 * How stores and the engine read the scope of a key, for events, messages and logs: by its namespace and scope,
 * never by its hash, since the hash is derived from the callers' arguments.
 *
 * <p>An engine key is {@code idem:{namespace}:{scope}:{hash}}. The namespace is the part up to the first colon after
 * {@code idem:}, the hash the part after the last colon; the scope is everything between, so a scope may hold colons
 * itself (a template {@code "{tenant}:orders"} filled with {@code acme} gives the scope {@code acme:orders}). Every
 * method here reads a key by this one rule.
 */
public final class KeyScopes {
    private static final String PREFIX = "idem:";

    private KeyScopes() {
    }

    /**
     * The scope of {@code key}, as events carry it.
     *
     * @param key an engine key {@code idem:{namespace}:{scope}:{hash}} or any other key
     * @return the scope of an engine key (which may be empty, or hold colons), else {@code key} itself: a key that is
     *         not the engine's is its own scope
     */
    public static String scope(String key) {
        int afterNamespace = afterNamespace(key);
        return afterNamespace < 0 ? key : key.substring(afterNamespace + 1, key.lastIndexOf(':'));
    }

    /**
     * Names {@code key} for a message.
     *
     * @param key an engine key {@code idem:{namespace}:{scope}:{hash}}, any other key, or empty for none
     * @return {@code "scope {namespace}:{scope}"} for an engine key, {@code "the store"} for the empty key, else
     *         {@code "a key outside any scope"}
     */
    public static String describe(String key) {
        if (key.isEmpty()) {
            return "the store";
        }
        return afterNamespace(key) < 0 ? "a key outside any scope"
                : "scope " + key.substring(PREFIX.length(), key.lastIndexOf(':'));
    }

    /** {@return the index of the colon that ends an engine key's namespace, or -1 when {@code key} is no engine key} */
    private static int afterNamespace(String key) {
        if (!key.startsWith(PREFIX)) {
            return -1;
        }
        int afterNamespace = key.indexOf(':', PREFIX.length());
        return afterNamespace > 0 && key.lastIndexOf(':') > afterNamespace ? afterNamespace : -1;
    }
}
