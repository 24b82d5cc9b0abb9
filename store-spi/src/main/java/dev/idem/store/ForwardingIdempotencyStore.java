package dev.idem.store;

import jakarta.annotation.Nonnull;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that passes every operation to another store: the base of a decorator that observes, counts or delays some
 * operations of a real store and leaves the rest alone (as Guava's forwarding collections are for collections).
 * Override the operations to decorate and call {@code super} (or {@link #delegate()}) to reach the real store.
 *
 * <p><b>Contract.</b> Every method of {@link IdempotencyStore}, including the optional ones with a default
 * ({@link #watch}, {@link #transactionalClaims}), is forwarded to the delegate with the same arguments, and its answer
 * or exception is returned or thrown unchanged: a {@link ClaimOutcome} keeps its store time, a store that offers
 * watches or transactional claims still offers them through the decorator. Nothing is added in between, so a
 * forwarding store behaves as its delegate does and passes the store TCK when the delegate does. When
 * {@code IdempotencyStore} gains a method, this class forwards it in the same release; a decorator therefore never
 * loses a capability its delegate has by falling back to an interface default.
 *
 * <p><b>Ownership.</b> {@link #close()} closes the delegate: the decorator owns the store it wraps. A decorator over a
 * store that someone else closes overrides {@code close()}.
 *
 * <p>Thread-safe when the delegate is; what a subclass adds must be too, since the engine calls a store from many
 * threads.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {
    private final IdempotencyStore delegate;

    /**
     * @param delegate the store every operation is passed to
     * @throws NullPointerException when {@code delegate} is null
     */
    protected ForwardingIdempotencyStore(@Nonnull IdempotencyStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * The store this one decorates, for a subclass that reaches it past its own overrides.
     *
     * @return the store every operation is passed to, as given to the constructor
     */
    @Nonnull
    protected final IdempotencyStore delegate() {
        return delegate;
    }

    @Nonnull
    @Override
    public ClaimOutcome claim(@Nonnull ClaimRequest request) {
        return delegate.claim(request);
    }

    @Override
    public boolean complete(@Nonnull String key, long fencingToken, @Nonnull byte[] result, @Nonnull Duration ttl) {
        return delegate.complete(key, fencingToken, result, ttl);
    }

    @Override
    public boolean fail(@Nonnull String key, long fencingToken, @Nonnull byte[] failure, @Nonnull Duration failureTtl) {
        return delegate.fail(key, fencingToken, failure, failureTtl);
    }

    @Override
    public boolean release(@Nonnull String key, long fencingToken) {
        return delegate.release(key, fencingToken);
    }

    @Override
    public boolean renew(@Nonnull String key, long fencingToken, @Nonnull Duration lease) {
        return delegate.renew(key, fencingToken, lease);
    }

    @Nonnull
    @Override
    public Optional<IdempotencyRecord> get(@Nonnull String key) {
        return delegate.get(key);
    }

    @Override
    public void delete(@Nonnull String key) {
        delegate.delete(key);
    }

    /** The delegate's watch: a decorator offers watches exactly when its delegate does. */
    @Nonnull
    @Override
    public Optional<KeyWatch> watch(@Nonnull String key) {
        return delegate.watch(key);
    }

    /** The delegate's capability, or its refusal (which names the delegate, the store that cannot). */
    @Nonnull
    @Override
    public TransactionalClaims transactionalClaims() {
        return delegate.transactionalClaims();
    }

    /** Closes the delegate; see the class's note on ownership. */
    @Override
    public void close() {
        delegate.close();
    }
}
