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
        if (o instanceof Probe) {
            return o.equals(this); // symmetric with a probe standing for this key
        }
        if (!(o instanceof CallKey)) {
            return false;
        }
        CallKey other = (CallKey) o;
        return sameIdentity(hi, lo, scope, other.hi, other.lo, other.scope);
    }

    /** The identity a key and a probe share: the 128-bit hash and the rendered scope. */
    private static boolean sameIdentity(long hi, long lo, String scope, long otherHi, long otherLo, String otherScope) {
        return hi == otherHi && lo == otherLo && scope.equals(otherScope);
    }

    /** The hash a key and a probe of the same identity share. */
    private static int hash(long hi, String scope) {
        return (int) (hi ^ (hi >>> 32)) * 31 + scope.hashCode();
    }

    /** The full key as stored: the prefix ({@link #keyPrefix(String, String)} when not given) and the hash in hex. */
    private static String text(String namespace, String scope, long hi, long lo, String keyPrefix) {
        return Sha256.hex128(keyPrefix != null ? keyPrefix : keyPrefix(namespace, scope), hi, lo);
    }

    /** Equality across engines too: the same call in the same namespace. */
    public boolean sameCallAs(CallKey other) {
        return equals(other) && namespace.equals(other.namespace);
    }

    @Override
    public int hashCode() {
        return hash(hi, scope);
    }

    /** The full key as stored. */
    @Override
    public String toString() {
        String t = text;
        if (t == null) {
            t = text(namespace, scope, hi, lo, keyPrefix);
            text = t;
        }
        return t;
    }

    /**
     * A call's identity written in place, to look a key up without making one: the replay of a result this engine
     * keeps allocates no key. It equals, and hashes as, the {@link CallKey} with the same scope and hash, so a map
     * keyed by {@code CallKey} finds that key's entry when asked with a probe ({@code ConcurrentHashMap}, and so
     * Caffeine, compare by {@code probe.equals(storedKey)}).
     *
     * <p>Never a map's key: it changes at every use. Each {@link CanonicalEncoder} has one, so it is confined to the
     * thread holding the encoder, and valid until the encoder's next use.
     */
    public static final class Probe {
        private String namespace;
        private String scope;
        private long hi;
        private long lo;
        private String keyPrefix;

        Probe() {
        }

        /** Makes this probe stand for {@code new CallKey(namespace, scope, hi, lo, keyPrefix)}; returns it. */
        public Probe set(String namespace, String scope, long hi, long lo, String keyPrefix) {
            this.namespace = namespace;
            this.scope = scope;
            this.hi = hi;
            this.lo = lo;
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Forgets the scope and namespace it held, so a released encoder keeps no text of a call alive. */
        void clear() {
            namespace = null;
            scope = null;
            keyPrefix = null;
            hi = 0;
            lo = 0;
        }

        public String scope() {
            return scope;
        }

        public long hi() {
            return hi;
        }

        public long lo() {
            return lo;
        }

        /** Whether it holds no text (for tests: a released encoder's probe must not). */
        boolean isClear() {
            return namespace == null && scope == null && keyPrefix == null;
        }

        /** The key this probe stands for, as a new object a map may keep. */
        public CallKey toKey() {
            return new CallKey(namespace, scope, hi, lo, keyPrefix);
        }

        @Override
        public boolean equals(Object o) {
            if (o instanceof CallKey) {
                CallKey other = (CallKey) o;
                return sameIdentity(hi, lo, scope, other.hi, other.lo, other.scope);
            }
            if (o instanceof Probe) {
                Probe other = (Probe) o;
                return sameIdentity(hi, lo, scope, other.hi, other.lo, other.scope);
            }
            return false;
        }

        @Override
        public int hashCode() {
            return hash(hi, scope);
        }

        /** The full key as stored, as {@link CallKey#toString()} gives it (built at every call: for events only). */
        @Override
        public String toString() {
            return text(namespace, scope, hi, lo, keyPrefix);
        }
    }
}
