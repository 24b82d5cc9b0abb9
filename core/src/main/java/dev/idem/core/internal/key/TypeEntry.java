package dev.idem.core.internal.key;

/** What the encoder knows about a class, found with one {@link ClassValue} lookup per value. */
final class TypeEntry {
    private static final ClassValue<TypeEntry> ENTRIES = new ClassValue<>() {
        @Override
        protected TypeEntry computeValue(Class<?> type) {
            return new TypeEntry(type);
        }
    };

    final ValueKind kind;
    final Class<?> type;
    private volatile ObjectLayout layout; // built on first use: only records and plain objects need one

    private TypeEntry(Class<?> type) {
        this.type = type;
        this.kind = ValueKind.of(type);
    }

    static TypeEntry of(Class<?> type) {
        return ENTRIES.get(type);
    }

    ObjectLayout layout() {
        ObjectLayout l = layout;
        if (l == null) {
            l = new ObjectLayout(type); // a race builds two equal layouts; either serves
            layout = l;
        }
        return l;
    }
}
