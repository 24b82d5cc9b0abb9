package dev.idem.core.internal;

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
    private String text;

    CallKey(String namespace, String scope, long hi, long lo) {
        this.namespace = namespace;
        this.scope = scope;
        this.hi = hi;
        this.lo = lo;
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
    boolean sameCallAs(CallKey other) {
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
            t = "idem:" + namespace + ":" + scope + ":" + Sha256.hex128(hi, lo);
            text = t;
        }
        return t;
    }
}
