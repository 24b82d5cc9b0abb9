package dev.idem.core.internal.call;

import dev.idem.IdempotencyAbandonedException;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.OnAbandoned;
import dev.idem.core.AbandonedExecution;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.Reconciler;
import dev.idem.core.Reconciliation;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.core.internal.plan.ReturnKind;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.TransactionalClaims;
import jakarta.annotation.Nullable;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a caller does once its claim has taken over an execution whose lease passed ({@code onAbandoned}, SEMANTICS.md
 * section 9). The takeover itself already happened, atomically, in the store's claim: this caller holds the key
 * under a larger fencing token, so the old owner's late completion is refused whatever is decided here.
 *
 * <ul>
 *   <li>{@link OnAbandoned#TAKE_OVER TAKE_OVER}: the method runs ({@code TAKEOVER} event).</li>
 *   <li>{@link OnAbandoned#RECONCILE RECONCILE}: the operation's {@link Reconciler} is asked. "It happened" stores
 *       its answer with the new claim's token as the key's result and returns it ({@code RECONCILED}); "it did not"
 *       lets the method run ({@code TAKEOVER}).</li>
 *   <li>{@link OnAbandoned#FAIL FAIL}: the claim is finished as FAILED for the ttl with an
 *       {@link IdempotencyAbandonedException} naming the key, which this caller and every later one gets
 *       ({@code ABANDONED}).</li>
 * </ul>
 *
 * <h2>Failing closed without losing the question</h2>
 * When the reconciler throws, returns null, or answers with a result the method's codec cannot store, the call fails
 * closed and nothing is stored. The claim is neither released (an absent key would let the next caller run the
 * method without asking) nor left to its full lease (callers would wait for nobody): its lease is shortened to a
 * millisecond, so the next call takes it over and asks again.
 *
 * <h2>Inside a transaction</h2>
 * A transactional call ({@code storeTransaction}) can take over too: its claim meets a plain call's claim in progress
 * whose lease passed (another method of the scope, or the method before it was made transactional). The same policy
 * applies ({@link #settleInTransaction}), with the transaction as the store: a reconciler's answer is completed in it
 * and committed. A refusal or a failed reconciliation stores nothing; the transaction rolls back as its caller closes
 * it, which puts the abandoned claim back as it was, so the next call meets it again (refused again under FAIL, until
 * a person deletes the record; asked again under RECONCILE).
 */
public final class AbandonedClaims {
    /** What is left of the lease of a claim handed back after a failed reconciliation. */
    private static final Duration HAND_BACK_LEASE = Duration.ofMillis(1);

    private final List<Reconciler> reconcilers;
    private final Events events;
    private final Clock clock;

    public AbandonedClaims(List<Reconciler> reconcilers, Events events, Clock clock) {
        this.reconcilers = List.copyOf(reconcilers);
        this.events = events;
        this.clock = clock;
    }

    /** The call's answer when it was settled without running the method. */
    record Settled(Object value) {
    }

    /**
     * Checks, when a plan is made, that an operation declared {@code RECONCILE} has exactly one reconciler.
     *
     * @throws IdempotencyConfigurationException naming the operation and the attribute
     */
    public void check(OperationPlan plan) {
        if (plan.policy.onAbandoned() == OnAbandoned.RECONCILE) {
            reconcilerFor(plan.operation);
        }
    }

    /**
     * Decides what the caller that took over {@code acquired.replaced()} (an IN_PROGRESS record whose lease passed)
     * does.
     *
     * @return null when the method is to run under the new claim; else the call's answer, in the form
     *         {@link CallRunner} returns (a private completed future for {@code CompletionStage} methods)
     * @throws IdempotencyAbandonedException under {@code FAIL}, or when reconciling failed
     */
    Settled settle(OperationPlan plan, String keyText, ClaimOutcome.Acquired acquired) {
        return settle(plan, keyText, acquired, null);
    }

    /**
     * {@link #settle} for a claim made inside {@code tx}, which the caller commits (when the method runs) or closes.
     * When this returns an answer, {@code tx} is committed with the answer as the key's result; when it throws
     * (including when that answer could not be completed or committed), nothing was recorded, and closing {@code tx}
     * rolls the claim back.
     */
    Settled settleInTransaction(OperationPlan plan, String keyText, ClaimOutcome.Acquired acquired,
                                TransactionalClaims.Transaction tx) {
        return settle(plan, keyText, acquired, Objects.requireNonNull(tx, "tx"));
    }

    /** Settles the takeover; {@code tx} is the transaction the claim was made in, or null for a plain claim. */
    private Settled settle(OperationPlan plan, String keyText, ClaimOutcome.Acquired acquired,
                           @Nullable TransactionalClaims.Transaction tx) {
        IdempotencyRecord dead = acquired.replaced();
        long token = acquired.fencingToken();
        String lapse = "the lease of " + dead.owner() + " (fencing token " + dead.fencingToken() + ") passed at "
                + dead.leaseUntil();
        OnAbandoned policy = plan.policy.onAbandoned();
        if (policy == OnAbandoned.TAKE_OVER) {
            events.emit(IdempotencyEventType.TAKEOVER, plan.operation, keyText, token, lapse);
            return null;
        }
        if (policy == OnAbandoned.FAIL) {
            throw refuse(plan, keyText, token, dead, lapse, tx);
        }
        Reconciliation answer = ask(plan, keyText, token, dead, lapse, tx);
        if (!answer.happened()) {
            events.emit(IdempotencyEventType.TAKEOVER, plan.operation, keyText, token, lapse
                    + "; the reconciler said its work did not happen, so the method runs again");
            return null;
        }
        Object value = store(plan, keyText, token, lapse, answer.result(), tx);
        Object returned = plan.returnKind == ReturnKind.OPTIONAL ? Optional.ofNullable(value)
                : plan.returnKind == ReturnKind.VOID ? null : value;
        return new Settled(plan.returnKind == ReturnKind.FUTURE ? CompletableFuture.completedFuture(returned)
                : returned);
    }

    private Reconciliation ask(OperationPlan plan, String keyText, long token, IdempotencyRecord dead, String lapse,
                               @Nullable TransactionalClaims.Transaction tx) {
        Reconciler reconciler = reconcilerFor(plan.operation);
        AbandonedExecution abandoned = new AbandonedExecution(plan.operation, keyText, dead.fencingToken(),
                dead.owner(), dead.startedAt(), dead.leaseUntil(), token);
        Reconciliation answer;
        try {
            answer = reconciler.reconcile(abandoned);
        } catch (Throwable t) {
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw failClosed(plan, keyText, token, lapse, "its reconciler " + reconciler + " failed: " + t, t, tx);
        }
        if (answer == null) {
            throw failClosed(plan, keyText, token, lapse, "its reconciler " + reconciler + " returned null instead"
                    + " of Reconciliation.happened(result) or didNotHappen()", null, tx);
        }
        return answer;
    }

    /**
     * Stores the reconciler's answer as the key's result and returns it as a duplicate would get it: decoded from
     * the stored bytes, so it is of the declared type, and a value the codec cannot read back is refused here rather
     * than left for every later call to trip on.
     */
    private Object store(OperationPlan plan, String keyText, long token, String lapse, Object result,
                         @Nullable TransactionalClaims.Transaction tx) {
        Object content = plan.returnKind == ReturnKind.OPTIONAL && result instanceof Optional
                ? ((Optional<?>) result).orElse(null) : result;
        byte[] bytes;
        Object decoded;
        try {
            if (plan.returnKind == ReturnKind.VOID && content != null) {
                throw new IllegalArgumentException("the method returns nothing, so the answer must be null");
            }
            bytes = plan.codec.encode(content);
            decoded = plan.codec.decode(bytes);
        } catch (Exception | StackOverflowError e) {
            throw failClosed(plan, keyText, token, lapse, "its reconciler's answer (a "
                    + (content == null ? "null" : content.getClass().getName()) + ") cannot be stored as the"
                    + " method's result with the '" + plan.codec.codecName() + "' codec: " + e.getMessage(), e, tx);
        }
        String how = lapse + "; the reconciler said its work happened, so its answer is the stored result and the"
                + " method did not run again";
        if (tx != null) {
            commit(plan, keyText, token, lapse, how, bytes, tx);
            return decoded;
        }
        try {
            if (plan.store.complete(keyText, token, bytes, plan.policy.ttl())) {
                events.emit(IdempotencyEventType.RECONCILED, plan.operation, keyText, token, how);
            } else {
                events.emit(IdempotencyEventType.LEASE_LOST, plan.operation, keyText, token, how
                        + "; but another caller took the key over meanwhile (the reconciler took longer than the"
                        + " lease), so storing the answer was refused by fencing");
            }
        } catch (RuntimeException e) {
            events.emit(IdempotencyEventType.INDETERMINATE, plan.operation, keyText, token, how + "; but the answer"
                    + " could not be stored, so the record stays in progress until its lease passes", e);
        }
        return decoded;
    }

    /**
     * The reconciler's answer, completed and committed in the transaction the claim was made in. If that fails, the
     * call fails closed ({@link #failClosed}): in transactional mode a result handed to the caller is one committed
     * with its record, so an answer that could not be recorded is not handed out; the transaction rolls back as its
     * caller closes it, which leaves the abandoned claim for the next call to reconcile.
     *
     * @throws IdempotencyAbandonedException when the answer could not be completed or committed
     */
    private void commit(OperationPlan plan, String keyText, long token, String lapse, String how, byte[] bytes,
                        TransactionalClaims.Transaction tx) {
        try {
            if (tx.complete(keyText, token, bytes, plan.policy.ttl())) {
                tx.commit();
                events.emit(IdempotencyEventType.RECONCILED, plan.operation, keyText, token, how);
                return;
            }
        } catch (RuntimeException e) {
            throw failClosed(plan, keyText, token, lapse, "its reconciler said the"
                    + " work happened, but its answer could not be committed (" + e.getMessage() + ")", e, tx);
        }
        throw failClosed(plan, keyText, token, lapse, "its reconciler said the work happened, but storing"
                + " its answer was refused although this transaction holds the key's row (was the record deleted?)",
                null, tx);
    }

    /**
     * onAbandoned = FAIL: the refusal is recorded for the ttl, so a person decides, not the next retry. Inside a
     * transaction nothing is recorded: the rollback leaves the abandoned claim, which refuses every call alike.
     */
    private IdempotencyAbandonedException refuse(OperationPlan plan, String keyText, long token,
                                                 IdempotencyRecord dead, String lapse,
                                                 @Nullable TransactionalClaims.Transaction tx) {
        IdempotencyAbandonedException refusal = new IdempotencyAbandonedException(plan.operation + ": key "
                + keyText + " was claimed by " + dead.owner() + " (fencing token " + dead.fencingToken()
                + ", started at " + dead.startedAt() + "), whose lease passed at " + dead.leaseUntil() + " before it"
                + " completed: the owner died or stalled, and whether its work happened is not known. With"
                + " onAbandoned = FAIL the method does not run again, and every call on the key is refused "
                + (tx == null ? "until " + clock.instant().plus(plan.policy.ttl()) + " (the ttl)"
                : "while the abandoned record stays") + ". Find out whether the work happened, then"
                + " delete the record (IdempotencyStore.delete(key)) to let the method run again.");
        if (tx != null) {
            events.emit(IdempotencyEventType.ABANDONED, plan.operation, keyText, token, lapse + "; onAbandoned ="
                    + " FAIL, so the call was refused; its transaction rolls back, leaving the abandoned record",
                    refusal);
            return refusal;
        }
        try {
            if (!plan.store.fail(keyText, token, plan.failureCodec.encode(refusal), plan.policy.ttl())) {
                refusal.addSuppressed(new IllegalStateException("recording the refusal was refused by fencing:"
                        + " another caller took the key over meanwhile"));
            }
        } catch (RuntimeException e) {
            refusal.addSuppressed(e); // the claim stays in progress; when its lease passes the next caller refuses
        }
        events.emit(IdempotencyEventType.ABANDONED, plan.operation, keyText, token, lapse
                + "; onAbandoned = FAIL, so the call was refused and the refusal recorded for the ttl", refusal);
        return refusal;
    }

    private IdempotencyAbandonedException failClosed(OperationPlan plan, String keyText, long token, String lapse,
                                                     String why, Throwable cause,
                                                     @Nullable TransactionalClaims.Transaction tx) {
        IdempotencyAbandonedException failure = new IdempotencyAbandonedException(plan.operation + ": key "
                + keyText + " was abandoned (" + lapse + ") and whether its work happened could not be settled: "
                + why + ". The method did not run (onAbandoned = RECONCILE fails closed); the next call asks the"
                + " reconciler again.", cause);
        if (tx == null) { // in a transaction, the rollback hands the abandoned claim back as it was
            try {
                plan.store.renew(keyText, token, HAND_BACK_LEASE);
            } catch (RuntimeException e) {
                failure.addSuppressed(e); // the claim's own lease passes instead
            }
        }
        events.emit(IdempotencyEventType.ABANDONED, plan.operation, keyText, token, lapse + "; reconciling failed ("
                + why + "), so the call was refused and the next call asks again", failure);
        return failure;
    }

    private Reconciler reconcilerFor(String operation) {
        List<Reconciler> answering = new ArrayList<>(1);
        for (Reconciler reconciler : reconcilers) {
            if (reconciler.reconciles(operation)) {
                answering.add(reconciler);
            }
        }
        if (answering.size() == 1) {
            return answering.get(0);
        }
        throw new IdempotencyConfigurationException(operation + ": @Idempotent(onAbandoned = RECONCILE) needs"
                + " exactly one Reconciler that reconciles(\"" + operation + "\"), but "
                + (answering.isEmpty() ? "none of the " + reconcilers.size() + " registered does"
                : answering.size() + " do: " + answering) + ". Register one with IdemSettings.Builder.reconciler or"
                + " in META-INF/services/dev.idem.core.Reconciler.");
    }
}
