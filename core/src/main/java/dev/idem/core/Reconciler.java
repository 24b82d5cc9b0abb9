package dev.idem.core;

import jakarta.annotation.Nonnull;

/**
 * Answers "the owner of this key died while running it: did the work happen?" for operations declared
 * {@code @Idempotent(onAbandoned = RECONCILE)}, typically by looking the operation up where its side effect lands
 * (an order by the idempotency key the method passed downstream, a payment by its reference).
 *
 * <p>Register one with {@link IdemSettings.Builder#reconciler(Reconciler)} or in
 * {@code META-INF/services/dev.idem.core.Reconciler}, exactly as listeners. Each operation declared
 * {@code RECONCILE} must be answered for by exactly one registered reconciler ({@link #reconciles(String)}); none
 * or two is an {@code IdempotencyConfigurationException} when the method is first planned, before it runs.
 *
 * <p>Called on the caller's thread, only when a claim whose lease passed is taken over, at most once per takeover.
 * The caller holds the key's new claim meanwhile, so no other caller runs the method; a slow reconciler holds
 * duplicates back (they wait, within their {@code waitTimeout}), so it should answer within the method's lease.
 */
public interface Reconciler {

    /**
     * Whether this reconciler answers for {@code operation}.
     *
     * @param operation the operation's name as events give it: {@code com.acme.OrderService#create}, or a
     *                  programmatic operation's name
     * @return true if {@link #reconcile} may be asked about it
     */
    boolean reconciles(@Nonnull String operation);

    /**
     * Whether the abandoned execution's work happened.
     *
     * @param abandoned the key, the operation, the dead owner and its fencing token
     * @return {@link Reconciliation#happened(Object)} with the result the method would have returned (stored and
     *         returned as that result; the method does not run again), or {@link Reconciliation#didNotHappen()}
     *         (the method runs); never null
     * @throws Exception when it cannot tell: the call fails closed with {@code IdempotencyAbandonedException},
     *                   the method does not run, and the next call asks again
     */
    @Nonnull
    Reconciliation reconcile(@Nonnull AbandonedExecution abandoned) throws Exception;
}
