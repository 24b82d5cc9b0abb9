package dev.idem.core.internal.call;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyStoreException;
import dev.idem.OnInProgress;
import dev.idem.StoreTransaction;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.Invocation;
import dev.idem.core.internal.codec.StoredResults;
import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.key.Sha256;
import dev.idem.core.internal.plan.DeferredStore;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.core.internal.plan.ReturnKind;
import dev.idem.core.internal.plan.StoreTransactionCheck;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Runs an operation declared with {@code storeTransaction = REQUIRED} or {@code MANDATORY}: its claim, its body and
 * its completion inside one transaction of the store's database (SEMANTICS.md section 9, last paragraph), so they
 * commit together or roll back together and no crash can leave one without the other.
 *
 * <h2>What the transaction replaces</h2>
 * <ul>
 *   <li><b>The lease and its heartbeat.</b> The claim locks the key's row until the transaction ends; nobody else
 *       can read the claim, let alone take it over, before the commit. No heartbeat runs: a renewal on another
 *       connection would only wait on that lock.</li>
 *   <li><b>Coalescing in this JVM.</b> A concurrent caller of the key waits on the row, as a caller in another
 *       process does, and sees the committed outcome. Handing it the leader's result before the commit could hand
 *       it a result that the application then rolls back.</li>
 *   <li><b>Abandoned claims of its own.</b> A claim that rolls back leaves nothing to take over. The claim can still
 *       meet a plain call's claim in progress whose lease passed (another method of the scope, or this one before it
 *       was made transactional): it takes it over, and {@code onAbandoned} decides inside the transaction
 *       ({@link AbandonedClaims#settleInTransaction}), as it does on the plain path.</li>
 *   <li><b>Releasing or recording a failure.</b> When the body throws, the rollback takes the claim with the
 *       method's writes: nothing is recorded and a retry runs again. So remembered failures are refused at
 *       planning.</li>
 * </ul>
 *
 * <h2>Whose transaction</h2>
 * With {@code MANDATORY} the application's, bound to the thread through the store's API; with {@code REQUIRED} that
 * one, or else one the store begins and this class commits. In a joined transaction the application still commits
 * or rolls back after this returns, so its result is not published to this engine's local results (a rollback
 * would leave them answering for work that never happened); the next caller reads the committed record.
 */
public final class TransactionalExecution {
    private final Clock clock;
    private final Events events;
    private final LocalResults local;
    private final String owner;
    private final AbandonedClaims abandoned;

    TransactionalExecution(Clock clock, Events events, LocalResults local, String owner, AbandonedClaims abandoned) {
        this.clock = clock;
        this.events = events;
        this.local = local;
        this.owner = owner;
        this.abandoned = abandoned;
    }

    /** Runs {@code body} for the call {@code key} as {@link StoreTransactionCheck checked} plans promise. */
    Object run(OperationPlan plan, CallKey key, byte[] payload, Invocation body) throws Throwable {
        String keyText = plan.storeKey(key);
        String payloadHex = Sha256.hex(payload, Sha256.LENGTH);
        ClaimRequest request = plan.claimRequest(keyText, payloadHex, owner);
        TransactionalClaims.Transaction tx;
        try {
            tx = begin(plan, keyText);
        } catch (IdempotencyStoreException e) {
            if (e == DeferredStore.creationFailure(plan.store)) {
                events.emit(IdempotencyEventType.STORE_ERROR, plan.operation, keyText, 0,
                        "the store cannot serve (not an outage); the method did not run", e);
                throw e; // a mistake, not an outage: as it is, as planning would have thrown it
            }
            throw storeError(plan, keyText, "beginning the transaction", e);
        }
        try (tx) {
            Optional<ClaimOutcome> claimed;
            try {
                claimed = tx.claim(request, plan.policy.onInProgress() == OnInProgress.THROW
                        ? Duration.ZERO : plan.policy.waitTimeout());
            } catch (IdempotencyStoreException e) {
                throw storeError(plan, keyText, "claiming the key", e);
            }
            if (claimed.isEmpty()) {
                events.emit(IdempotencyEventType.IN_PROGRESS, plan.operation, keyText, 0,
                        "held by an open transaction");
                throw new IdempotencyInProgressException(plan.operation + ": key " + keyText + " is being executed"
                        + " in another transaction on the store's database, which did not end within "
                        + (plan.policy.onInProgress() == OnInProgress.THROW ? "onInProgress = THROW"
                        : "waitTimeout = " + plan.policy.waitTimeout()) + "; the method did not run");
            }
            if (claimed.get() instanceof ClaimOutcome.Existing) {
                IdempotencyRecord existing = ((ClaimOutcome.Existing) claimed.get()).record();
                return answer(plan, key, keyText, payload, payloadHex, existing,
                        LocalResults.storeOffset(claimed.get(), clock), tx.joined());
            }
            ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) claimed.get();
            long token = acquired.fencingToken();
            IdempotencyRecord replaced = acquired.replaced();
            if (replaced != null && replaced.state() != RecordState.IN_PROGRESS) {
                events.emit(IdempotencyEventType.LATE_DUPLICATE, plan.operation, keyText, token, "a duplicate"
                        + " arrived after window = " + plan.policy.window() + "; it ran again");
            } else if (replaced != null) { // a plain call's claim whose lease passed: onAbandoned decides
                AbandonedClaims.Settled settled = abandoned.settleInTransaction(plan, keyText, acquired, tx);
                if (settled != null) {
                    return settled.value();
                }
            }
            long startedAt = replaced != null && replaced.state() == RecordState.IN_PROGRESS
                    ? replaced.startedAt().toEpochMilli() + LocalResults.storeOffset(acquired, clock) // engine's clock
                    : clock.millis();
            Object result;
            IdempotencyContext previous = ExecutionContext.enter(keyText, token, key);
            try {
                result = body.proceed(); // a throw leaves through close(): the claim rolls back with the writes
            } finally {
                ExecutionContext.leave(previous);
            }
            Object stored = plan.returnKind == ReturnKind.OPTIONAL
                    ? (result == null ? null : ((Optional<?>) result).orElse(null))
                    : plan.returnKind == ReturnKind.VOID ? null : result;
            byte[] bytes;
            try {
                bytes = plan.codec.encode(stored);
            } catch (Throwable e) {
                throw new IdempotencyStoreException(plan.operation + ": the result of key " + keyText + " could not"
                        + " be encoded with the '" + plan.codec.codecName() + "' codec (" + e + "); the transaction"
                        + " was rolled back, so neither the method's writes nor a record remain", e);
            }
            if (!tx.complete(keyText, token, bytes, plan.policy.ttl())) {
                throw new IdempotencyStoreException(plan.operation + ": the completion of key " + keyText
                        + " was refused although this transaction holds its row (was the record deleted?); the"
                        + " transaction was rolled back");
            }
            tx.commit();
            if (!tx.joined()) {
                local.put(key, new LocalResults.Entry(plan.id, result, payload, plan.supersedeAt(startedAt),
                        clock.millis() + plan.policy.ttl().toMillis()));
            }
            events.emit(IdempotencyEventType.EXECUTED, plan.operation, keyText, token, tx.joined()
                    ? "result stored in the application's transaction" : "result committed with the method's writes");
            return result;
        }
    }

    /** The store failed before the method ran; whatever the transaction did rolls back as it closes. */
    private IdempotencyStoreException storeError(OperationPlan plan, String keyText, String when,
                                                 IdempotencyStoreException e) {
        events.emit(IdempotencyEventType.STORE_ERROR, plan.operation, keyText, 0, "store failed " + when, e);
        return new IdempotencyStoreException(plan.operation + ": the idempotency store failed " + when + " (key "
                + keyText + "): " + e.getMessage() + "; the method did not run (storeTransaction fails closed)", e);
    }

    private TransactionalClaims.Transaction begin(OperationPlan plan, String keyText) {
        TransactionalClaims claims;
        try {
            claims = plan.store.transactionalClaims();
        } catch (UnsupportedOperationException e) {
            // Planned while the store did not exist yet (StoreTransactionCheck), and it turned out not to offer it.
            throw StoreTransactionCheck.unsupported(plan, "its store (" + plan.store + ")", e);
        }
        if (plan.policy.storeTransaction() == StoreTransaction.REQUIRED) {
            return claims.joinOrBegin();
        }
        return claims.join().orElseThrow(() -> new IdempotencyConfigurationException(plan.operation
                + ": @Idempotent(storeTransaction = MANDATORY) but no application transaction is bound to this thread"
                + " (key " + keyText + "); bind yours through the store's API (for the jdbc store,"
                + " JdbcTransactions.join(connection)), or declare storeTransaction = REQUIRED. The method did not"
                + " run."));
    }

    /**
     * The claim met a record: replay it, or say why not. In a joined transaction the record may be this very
     * transaction's, not yet committed (the application called the key twice), so it is not published locally.
     * {@code storeOffset} moves the record's instants onto the engine's clock ({@link LocalResults#storeOffset}).
     */
    private Object answer(OperationPlan plan, CallKey key, String keyText, byte[] payload, String payloadHex,
                          IdempotencyRecord record, long storeOffset, boolean joined) throws Throwable {
        if (!record.payloadHash().equals(payloadHex)) {
            events.emit(IdempotencyEventType.CONFLICT, plan.operation, keyText, 0, "same key, other payload");
            throw new IdempotencyConflictException(plan.operation + ": key " + keyText + " was already used with"
                    + " other arguments; the same operation id with another payload is a bug, not a retry, so the"
                    + " method did not run");
        }
        switch (record.state()) {
            case COMPLETED:
                Object value;
                try {
                    Object decoded = plan.codec.decode(record.result());
                    value = plan.returnKind == ReturnKind.OPTIONAL ? Optional.ofNullable(decoded)
                            : plan.returnKind == ReturnKind.VOID ? null : decoded;
                } catch (StoredResults.UnreadableResultException e) {
                    throw new IdempotencyStoreException(plan.operation + ": the stored result of key " + keyText
                            + " (completed at " + record.completedAt() + ") cannot be decoded: " + e.getMessage()
                            + ". The operation did run and committed, so it is not run again; delete the record"
                            + " or let it expire (" + record.expiresAt() + ") to clear it.", e);
                }
                if (!joined) {
                    local.put(key, new LocalResults.Entry(plan.id, value, payload,
                            plan.supersedeAt(record.startedAt().toEpochMilli() + storeOffset),
                            record.expiresAt().toEpochMilli() + storeOffset));
                }
                events.emit(IdempotencyEventType.REPLAYED, plan.operation, keyText, record.fencingToken(),
                        "from the store");
                return value;
            case FAILED:
                events.emit(IdempotencyEventType.FAILURE_REPLAYED, plan.operation, keyText, record.fencingToken(),
                        "a remembered failure");
                throw plan.failureCodec.decode(record.result(), keyText);
            default:
                // Only a call of the same scope without storeTransaction commits a claim in progress.
                events.emit(IdempotencyEventType.IN_PROGRESS, plan.operation, keyText, record.fencingToken(),
                        "held by " + record.owner());
                throw new IdempotencyInProgressException(plan.operation + ": key " + keyText + " is being executed"
                        + " by " + record.owner() + " outside any transaction (lease until " + record.leaseUntil()
                        + "); the method did not run");
        }
    }
}
