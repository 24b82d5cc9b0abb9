package dev.idem.core.internal;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;

import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Makes the in-memory store known as {@code memory}, bounded by {@code idem.memory.maximumSize} records
 * [{@value InMemoryIdempotencyStore#DEFAULT_MAXIMUM_SIZE}] and {@code idem.memory.maximumBytes} [maximumSize times
 * {@value InMemoryIdempotencyStore#DEFAULT_BYTES_PER_RECORD}]. A byte count takes an optional {@code KB}, {@code MB}
 * or {@code GB} (powers of 1024); both take {@code _} between digits.
 */
public final class InMemoryStoreProvider implements IdempotencyStoreProvider {
    static final String MAXIMUM_SIZE = "maximumSize";
    static final String MAXIMUM_BYTES = "maximumBytes";
    private static final Set<String> KEYS = Set.of(MAXIMUM_SIZE, MAXIMUM_BYTES);
    private static final String[] BYTE_UNITS = {"KB", "MB", "GB"};

    @Override
    public String name() {
        return "memory";
    }

    /** {@return maximumSize and maximumBytes: what {@link #create} accepts} */
    @Override
    public Set<String> propertyNames() {
        return KEYS;
    }

    @Override
    public IdempotencyStore create(Map<String, String> properties, Clock clock) {
        for (Map.Entry<String, String> p : properties.entrySet()) {
            if (!KEYS.contains(p.getKey())) {
                throw new IdempotencyConfigurationException("unknown configuration key idem.memory." + p.getKey()
                        + " = \"" + p.getValue() + "\"; the in-memory store knows idem.memory." + MAXIMUM_SIZE
                        + " and idem.memory." + MAXIMUM_BYTES);
            }
        }
        String size = properties.get(MAXIMUM_SIZE);
        long maximumSize = size == null ? InMemoryIdempotencyStore.DEFAULT_MAXIMUM_SIZE
                : positive(MAXIMUM_SIZE, size, size, 1, "number of records, such as 100000");
        String bytes = properties.get(MAXIMUM_BYTES);
        long maximumBytes = bytes == null
                ? saturatedMultiply(maximumSize, InMemoryIdempotencyStore.DEFAULT_BYTES_PER_RECORD) : bytes(bytes);
        return new InMemoryIdempotencyStore(clock, maximumSize, maximumBytes);
    }

    private static long bytes(String value) {
        String v = value.trim().toUpperCase(Locale.ROOT);
        for (int i = 0; i < BYTE_UNITS.length; i++) {
            if (v.endsWith(BYTE_UNITS[i])) {
                return positive(MAXIMUM_BYTES, value, v.substring(0, v.length() - 2), 1L << (10 * (i + 1)),
                        "number of bytes, such as 134217728 or 128MB");
            }
        }
        return positive(MAXIMUM_BYTES, value, v, 1, "number of bytes, such as 134217728 or 128MB");
    }

    private static long positive(String key, String value, String digits, long unit, String expected) {
        try {
            long n = Long.parseLong(digits.trim().replace("_", ""));
            if (n >= 1 && n <= Long.MAX_VALUE / unit) {
                return n * unit;
            }
        } catch (NumberFormatException e) {
            // reported below, with the value
        }
        throw new IdempotencyConfigurationException("idem.memory." + key + " = \"" + value + "\" is not a positive "
                + expected);
    }

    private static long saturatedMultiply(long a, long b) {
        return Math.multiplyHigh(a, b) != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
    }
}
