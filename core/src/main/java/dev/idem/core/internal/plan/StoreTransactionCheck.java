package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
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
     * attributes that need the claim to outlive the transaction.
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
        try {
            plan.store.transactionalClaims();
        } catch (UnsupportedOperationException e) {
            throw new IdempotencyConfigurationException(attribute + " needs a store that claims keys inside the"
                    + " database transaction the method writes in; store \"" + storeName + "\" cannot: "
                    + e.getMessage(), e);
        }
    }
}
