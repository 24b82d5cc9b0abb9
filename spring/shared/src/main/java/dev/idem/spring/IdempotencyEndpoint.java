package dev.idem.spring;

import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code idempotency} actuator endpoint over the application's store beans: whether each answers, one record by
 * its key (its state, owner, lease, fencing token and times; never its result, of which only the length is shown),
 * and, as a write operation, the release of a record in progress whose owner will not finish it (fenced: only under
 * the token the operator saw, so a record claimed again meanwhile is left alone).
 *
 * <p>Like every actuator endpoint it is not exposed over HTTP unless the application exposes it
 * ({@code management.endpoints.web.exposure.include=idempotency}); its write operation is then guarded as the
 * application guards its actuator writes.
 */
@Endpoint(id = "idempotency")
public class IdempotencyEndpoint {
    private final Map<String, IdempotencyStore> stores;

    /** @param stores the application's store beans, by bean name */
    public IdempotencyEndpoint(Map<String, IdempotencyStore> stores) {
        this.stores = Map.copyOf(stores);
    }

    /** {@return each store bean by name: its class and whether it answers} */
    @ReadOperation
    public Map<String, Object> stores() {
        Map<String, Object> all = new LinkedHashMap<>();
        stores.forEach((name, store) -> {
            StoreProbe.Result probe = StoreProbe.probe(store);
            Map<String, Object> described = new LinkedHashMap<>(probe.details());
            described.put("reachable", probe.reachable());
            all.put(name, described);
        });
        return Map.of("stores", all);
    }

    /**
     * The record of {@code key} in the store that holds it.
     *
     * @param key an idempotency key as Idem's messages and events name it ({@code idem:<namespace>:<scope>:<hash>})
     * @return the record's description with its store's name, or null (HTTP 404) when no store holds it
     */
    @ReadOperation
    public Map<String, Object> record(@Selector String key) {
        for (Map.Entry<String, IdempotencyStore> store : stores.entrySet()) {
            Optional<IdempotencyRecord> found = store.getValue().get(key);
            if (found.isPresent()) {
                return describe(store.getKey(), found.get());
            }
        }
        return null;
    }

    /**
     * Releases the record of {@code key} while it is in progress under {@code fencingToken}, so the next call runs
     * the method again.
     *
     * @param key          the record's key
     * @param fencingToken the token the record showed (from {@link #record})
     * @return whether a store released it, and the record as it is now
     */
    @WriteOperation
    public Map<String, Object> release(@Selector String key, long fencingToken) {
        for (Map.Entry<String, IdempotencyStore> store : stores.entrySet()) {
            Optional<IdempotencyRecord> found = store.getValue().get(key);
            if (found.isPresent()) {
                boolean released = store.getValue().release(key, fencingToken);
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("released", released);
                answer.put("store", store.getKey());
                if (!released) {
                    answer.put("why", "the record is not in progress under fencing token " + fencingToken
                            + " (it finished, or was claimed again since): nothing was changed");
                }
                return answer;
            }
        }
        return Map.of("released", false, "why", "no store holds a record of " + key);
    }

    private static Map<String, Object> describe(String store, IdempotencyRecord record) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("store", store);
        described.put("key", record.key());
        described.put("state", record.state().name());
        described.put("owner", record.owner());
        described.put("fencingToken", record.fencingToken());
        described.put("startedAt", record.startedAt().toString());
        described.put("leaseUntil", record.leaseUntil().toString());
        if (record.completedAt() != null) {
            described.put("completedAt", record.completedAt().toString());
        }
        if (record.expiresAt() != null) {
            described.put("expiresAt", record.expiresAt().toString());
        }
        if (record.result() != null) {
            described.put("resultBytes", record.result().length);
        }
        return described;
    }
}
