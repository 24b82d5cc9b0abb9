package dev.idem.core.internal.key;

/**
 * The identity of a call inside one engine: its rendered scope and the 128-bit key hash. It is what the local
 * result cache and the in-flight map are keyed by, so a replay never builds the key's String; the full key
 * ({@code idem:{namespace}:{scope}:{hex}}) is built once, on first need.
 */
public final class CallKey {
    private final String namespace;
    private final String scope;
    private final long hi;
    private final long lo;
    /** {@code idem:{namespace}:{scope}:}, shared by every call of a literal scope; null to build it on need. */
    private final String keyPrefix;
    private String text;

    public CallKey(String namespace, String scope, long hi, long lo) {
        this(namespace, scope, hi, lo, null);
    }

    public CallKey(String namespace, String scope, long hi, long lo, String keyPrefix) {
        this.namespace = namespace;
        this.scope = scope;
        this.hi = hi;
        this.lo = lo;
        this.keyPrefix = keyPrefix;
    }

    /** {@code idem:{namespace}:{scope}:}, the part of a key before its hash. */
    public static String keyPrefix(String namespace, String scope) {
        return "idem:" + namespace + ":" + scope + ":";
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CallKey)) {
            return false;
        }
        CallKey other = (CallKey) o;
        return hi == other.hi && lo == other.lo && scope.equals(other.scope);
    }

    /** Equality across engines too: the same call in the same namespace. */
    public boolean sameCallAs(CallKey other) {
        return equals(other) && namespace.equals(other.namespace);
    }

    @Override
    public int hashCode() {
        return (int) (hi ^ (hi >>> 32)) * 31 + scope.hashCode();
    }

    /** The full key as stored. */
    @Override
    public String toString() {
        String t = text;
        if (t == null) {
            t = Sha256.hex128(keyPrefix != null ? keyPrefix : keyPrefix(namespace, scope), hi, lo);
            text = t;
        }
        return t;
    }
}
