package dev.idem.core.internal.plan;

import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.StoreCircuit;
import dev.idem.store.TransactionalClaims;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A store whose creation failed because its server was unreachable: it stands in for the store until the server
 * answers. Until then every operation is refused at once with {@link IdempotencyStoreUnreachableException} (the
 * engine fails the call closed, or runs it unprotected under {@code onStoreError = FAIL_OPEN}), and the store is
 * created again by a {@link StoreCircuit} probe, one attempt at a time with back-off, in the background. Once an
 * attempt returns a store, every operation is that store's, and the store's own failures are reported as they are.
 *
 * <p>Closing closes the created store, or, when an attempt in flight creates one after the close, that one.
 */
final class DeferredStore implements IdempotencyStore {
    private static final System.Logger LOG = System.getLogger(DeferredStore.class.getName());

    private final String name;
    private final Supplier<IdempotencyStore> factory;
    private final StoreCircuit circuit;
    private volatile IdempotencyStore store;
    private volatile boolean closed;

    /**
     * @param name    the store's configured name, for messages
     * @param factory creates the store; throws when the server is still unreachable
     * @param failure why the first creation failed
     */
    DeferredStore(String name, Supplier<IdempotencyStore> factory, IdempotencyStoreUnreachableException failure) {
        this.name = name;
        this.factory = factory;
        this.circuit = new StoreCircuit("store \"" + name + "\"", key -> key, this::create);
        circuit.open(failure);
    }

    private void create() {
        IdempotencyStore created = factory.get();
        synchronized (this) {
            if (!closed) {
                store = created;
                LOG.log(Level.INFO, "store \"" + name + "\" is reachable now; calls are protected again");
                return;
            }
        }
        created.close();
    }

    /** The store, or the circuit's refusal while it does not exist yet. */
    private IdempotencyStore store(String operation, String key) {
        IdempotencyStore s = store;
        if (s != null) {
            return s;
        }
        if (closed) {
            throw new IdempotencyStoreException("store \"" + name + "\": " + operation + " of " + key
                    + " refused: the store is closed");
        }
        circuit.admit(operation, key);
        s = store; // the circuit closes only after a probe created the store
        if (s == null) {
            throw new IllegalStateException("the circuit of store \"" + name + "\" closed without a store");
        }
        return s;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        return store("claim", request.key()).claim(request);
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        return store("complete", key).complete(key, fencingToken, result, ttl);
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        return store("fail", key).fail(key, fencingToken, failure, failureTtl);
    }

    @Override
    public boolean release(String key, long fencingToken) {
        return store("release", key).release(key, fencingToken);
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        return store("renew", key).renew(key, fencingToken, lease);
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        return store("get", key).get(key);
    }

    @Override
    public void delete(String key) {
        store("delete", key).delete(key);
    }

    @Override
    public Optional<KeyWatch> watch(String key) {
        return store("watch", key).watch(key);
    }

    @Override
    public TransactionalClaims transactionalClaims() {
        return store("transactional claims", "any key").transactionalClaims();
    }

    @Override
    public void close() {
        IdempotencyStore s;
        synchronized (this) {
            closed = true;
            circuit.close();
            s = store;
        }
        if (s != null) {
            s.close();
        }
    }

    @Override
    public String toString() {
        IdempotencyStore s = store;
        return s != null ? s.toString() : "store \"" + name + "\" (unreachable so far)";
    }
}
