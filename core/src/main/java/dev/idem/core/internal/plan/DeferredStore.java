package dev.idem.core.internal.plan;

import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyScopes;
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
 * <p>An attempt that fails with anything but {@link IdempotencyStoreUnreachableException} (a missing table, a refused
 * login, a bad property: the server answered, or the configuration is wrong) ends the probing: no later attempt could
 * mend it, and reporting it as an outage would keep callers failing for the wrong reason (or, under FAIL_OPEN,
 * running unprotected for good). That error is then thrown, as it is, by every later operation, and
 * {@link #creationFailure} tells the engine so, which fails such calls closed whatever {@code onStoreError} says.
 *
 * <p>Closing closes the created store, or, when an attempt in flight creates one after the close, that one.
 */
public final class DeferredStore implements IdempotencyStore {
    private static final System.Logger LOG = System.getLogger(DeferredStore.class.getName());

    private final String name;
    private final Supplier<IdempotencyStore> factory;
    private final StoreCircuit circuit;
    private volatile IdempotencyStore store;
    /** Why an attempt failed for good (not an outage); set once, and then no attempt is made again. */
    private volatile RuntimeException broken;
    private volatile boolean closed;

    /**
     * @param name    the store's configured name, for messages
     * @param factory creates the store; throws when the server is still unreachable
     * @param failure why the first creation failed
     */
    DeferredStore(String name, Supplier<IdempotencyStore> factory, IdempotencyStoreUnreachableException failure) {
        this(name, factory, failure, null);
    }

    /** As above, with the circuit's probes run by {@code probes} (tests run them one by one); null: its own. */
    DeferredStore(String name, Supplier<IdempotencyStore> factory, IdempotencyStoreUnreachableException failure,
                  StoreCircuit.ProbeScheduler probes) {
        this.name = name;
        this.factory = factory;
        String subject = "store \"" + name + "\"";
        this.circuit = probes == null ? new StoreCircuit(subject, DeferredStore::scopeOf, this::create)
                : new StoreCircuit(subject, DeferredStore::scopeOf, this::create, StoreCircuit.FIRST_BACKOFF,
                        StoreCircuit.LONGEST_BACKOFF, System::nanoTime, probes);
        circuit.open(failure);
    }

    /**
     * The error that ended the attempts to create {@code store}'s real store, when {@code store} is a stand-in whose
     * creation failed for good; null otherwise (a working store, or one that is only unreachable so far). Every
     * operation of such a store throws this very instance, so the engine can tell it from a failure of the store's
     * server, and must not run the method unprotected over it.
     */
    public static RuntimeException creationFailure(IdempotencyStore store) {
        return store instanceof DeferredStore deferred ? deferred.broken : null;
    }

    private void create() {
        IdempotencyStore created;
        try {
            created = factory.get();
        } catch (IdempotencyStoreUnreachableException e) {
            throw e; // still an outage: the circuit probes again later
        } catch (RuntimeException e) {
            broken = e;
            circuit.close(); // no further attempt: this one's answer stands
            LOG.log(Level.ERROR, "store \"" + name + "\" answered but cannot be created (" + e.getMessage()
                    + "); it is not tried again, and every call fails with this error until the engine is"
                    + " re-created", e);
            return;
        }
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
            throw new IdempotencyStoreException("store \"" + name + "\": " + operation + " of " + scopeOf(key)
                    + " refused: the store is closed");
        }
        RuntimeException failure = broken;
        if (failure != null) {
            throw failure;
        }
        circuit.admit(operation, key);
        s = store; // the circuit closes only after a probe created the store
        failure = broken;
        if (failure != null) { // the attempt failed for good between the two reads
            throw failure;
        }
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
        return store("transactional claims", "").transactionalClaims();
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

    /** Names {@code key} in messages by its scope, never its hash: {@link KeyScopes#describe}. */
    static String scopeOf(String key) {
        return KeyScopes.describe(key);
    }

    @Override
    public String toString() {
        IdempotencyStore s = store;
        return s != null ? s.toString() : "store \"" + name + "\" (unreachable so far)";
    }
}
