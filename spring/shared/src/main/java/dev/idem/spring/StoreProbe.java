package dev.idem.spring;

import dev.idem.store.IdempotencyStore;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether a store answers: one read of a key no call ever claims (it has no hash part), which goes the whole way to
 * the store's server (its pool, its table, its circuit) and changes nothing. For the health indicators and the
 * {@code idempotency} endpoint.
 */
final class StoreProbe {
    /** A key of no call: Idem's keys end with a hash after the scope. */
    static final String KEY = "idem:health-probe";

    private StoreProbe() {
    }

    /**
     * What one probe of {@code store} found.
     *
     * @param reachable whether the store answered
     * @param details   the store's class and, when it did not answer, why (the exception's type and message)
     */
    record Result(boolean reachable, Map<String, Object> details) {
    }

    static Result probe(IdempotencyStore store) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("store", store.getClass().getName());
        try {
            store.get(KEY);
            return new Result(true, details);
        } catch (RuntimeException e) {
            details.put("error", e.getClass().getName() + ": " + e.getMessage());
            return new Result(false, details);
        }
    }
}
