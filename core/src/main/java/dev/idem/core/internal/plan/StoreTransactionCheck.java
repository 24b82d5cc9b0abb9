package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.OnStoreError;
import dev.idem.OnUndecodable;
import dev.idem.StoreTransaction;

/**
 * The planning check of {@code storeTransaction = REQUIRED | MANDATORY}: whether the method's claim, body and
 * completion can be one transaction of its store's database. {@code internal.call}'s {@code TransactionalExecution}
 * runs the plans this check let through.
 */
public final class StoreTransactionCheck {
    private StoreTransactionCheck() {
    }

    /**
     * Refuses, at planning, a plan whose transactional mode cannot be kept: a store without the capability, and
     * attributes that need the claim to outlive the transaction. A plan checked without its store ({@code idem:check})
     * and one whose store does not exist yet (unreachable so far) are not refused for the capability: the first has
     * it checked when it is planned for calls, the second at each call until its store exists.
     *
     * @param storeName the store's name as configured, for the message
     */
    static void requireSupported(OperationPlan plan, String storeName) {
        StoreTransaction mode = plan.policy.storeTransaction();
        if (mode == StoreTransaction.NONE) {
            return;
        }
        String attribute = plan.operation + ": @Idempotent(storeTransaction = " + mode + ")";
        if (plan.returnKind == ReturnKind.FUTURE) {
            throw new IdempotencyConfigurationException(attribute + " needs the method's work done on the calling"
                    + " thread, inside the transaction that claimed the key; a CompletionStage finishes later, on"
                    + " another thread. Return the value itself, or drop storeTransaction.");
        }
        if (!plan.policy.failureTtl().isZero() || !plan.policy.noRetryFor().isEmpty()) {
            throw new IdempotencyConfigurationException(attribute + " rolls a failed call back with its claim, so"
                    + " there is no record left to remember the failure in; drop failureTtl and noRetryFor.");
        }
        if (plan.policy.retry().maxAttempts() > 1) {
            // Refused rather than ignored: the transactional path runs the body once, and an attempt that failed
            // would have to roll its writes back without the claim (a savepoint per attempt), which is not built.
            throw new IdempotencyConfigurationException(attribute + " runs the method once, inside the transaction"
                    + " that claimed the key: retry (maxAttempts = " + plan.policy.retry().maxAttempts() + ") would"
                    + " need each failed attempt's writes rolled back without the claim. Drop retry, or retry around"
                    + " the call (the next call takes the key again once the failed one rolled back).");
        }
        if (plan.policy.maxConcurrent() > 0) {
            throw new IdempotencyConfigurationException(attribute + " and maxConcurrent = "
                    + plan.policy.maxConcurrent() + ": the transactional path has no bulkhead yet; bound the"
                    + " executions with the pool of the store's DataSource instead, or drop maxConcurrent.");
        }
        if (plan.policy.onStoreError() == OnStoreError.FAIL_OPEN) {
            throw new IdempotencyConfigurationException(attribute + " and onStoreError = FAIL_OPEN: the method's"
                    + " writes go to the store's own database, so they cannot run while it is unreachable.");
        }
        if (plan.policy.onUndecodable() == OnUndecodable.RUN_AGAIN) {
            throw new IdempotencyConfigurationException(attribute + " does not yet run a method again over a"
                    + " result it cannot decode; drop onUndecodable = RUN_AGAIN.");
        }
        if (plan.store == null) {
            return; // checked without its store (idem:check): whether it can is the store's to tell, at planning
        }
        try {
            plan.store.transactionalClaims();
        } catch (UnsupportedOperationException e) {
            throw unsupported(plan, "store \"" + storeName + "\"", e);
        } catch (IdempotencyStoreUnreachableException e) {
            // The store does not exist yet (its server was unreachable when it was created): an outage is no reason
            // to refuse the method. Until it exists its calls fail closed with the store error, and the capability
            // is asked at each call (TransactionalExecution), so a store that turns out not to have it is then a
            // configuration error at every call.
        }
    }

    /**
     * The refusal of a transactional plan whose store turned out not to claim inside a transaction.
     *
     * @param store how to name the store ({@code store "jdbc"})
     * @param e     the store's answer to {@code transactionalClaims()}
     */
    public static IdempotencyConfigurationException unsupported(OperationPlan plan, String store,
                                                                 UnsupportedOperationException e) {
        return new IdempotencyConfigurationException(plan.operation + ": @Idempotent(storeTransaction = "
                + plan.policy.storeTransaction() + ") needs a store that claims keys inside the database transaction"
                + " the method writes in; " + store + " cannot: " + e.getMessage(), e);
    }
}
