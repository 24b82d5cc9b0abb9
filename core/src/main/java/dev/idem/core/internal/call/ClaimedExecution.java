package dev.idem.core.internal.call;

import dev.idem.IdempotencyBulkheadFullException;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyResultNotStoredException;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.Invocation;
import dev.idem.core.internal.codec.PersonalFailures;
import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.core.internal.plan.ReturnKind;
import dev.idem.internal.ContextSlot;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Runs a method body under a claim this engine holds, and finishes the claim: the part of a call between the
 * store's "acquired" and the record's final state.
 *
 * <h2>The claim is always finished</h2>
 * Whatever happens after the claim, the record ends in a state SEMANTICS.md documents, written with the claim's
 * fencing token: COMPLETED with the result; released (or FAILED, for remembered failures) when the method threw;
 * FAILED for the ttl when the method ran but its result cannot be encoded, even when encoding throws an
 * {@link Error}, so the work is not repeated by accident. Only
 * a store that cannot be reached leaves the record in progress until its lease passes, and that is reported
 * (INDETERMINATE). Nothing thrown while saving reaches the caller who ran the method: the work happened, so it gets
 * its result.
 *
 * <h2>Attempts</h2>
 * The body runs through {@link AttemptRunner}: as it is, or within its scope's concurrency limit and attempt after
 * attempt when the policy retries. Either way it runs under this one claim and heartbeat, and what follows here sees
 * only the final outcome.
 *
 * <h2>Ordering</h2>
 * The heartbeat of an execution is stopped before its claim is completed or released, so a renewal refused because
 * of that completion is never mistaken for a lost lease. A result is published to the local results before the
 * shared future of a {@code CompletionStage} method completes, so a caller arriving in between finds it in one
 * place or the other.
 */
final class ClaimedExecution {
    private static final System.Logger LOG = System.getLogger(ClaimedExecution.class.getName());

    private final Clock clock;
    private final Events events;
    private final LocalResults local;
    private final LeaseHeartbeat heartbeat;
    private final int completionAttempts;
    private final Duration completionBackoff;
    private final AttemptRunner attempts;

    ClaimedExecution(Clock clock, Events events, LocalResults local, LeaseHeartbeat heartbeat,
                     int completionAttempts, Duration completionBackoff, AttemptRunner attempts) {
        this.clock = clock;
        this.events = events;
        this.local = local;
        this.heartbeat = heartbeat;
        this.completionAttempts = completionAttempts;
        this.completionBackoff = completionBackoff;
        this.attempts = attempts;
    }

    /**
     * Runs {@code body} holding the claim {@code token} of {@code key}. For {@code CompletionStage} methods the
     * returned object is a CompletableFuture of the result's content, private to the engine; callers get copies.
     */
    Object run(OperationPlan plan, CallKey key, String keyText, byte[] payload, long token, long startedAt,
               Invocation body) throws Throwable {
        // The context is the execution's beat too: one object for both.
        ExecutionContext context = heartbeat.start(new ExecutionContext(plan.store, plan.operation, keyText, token,
                plan.policy.lease(), key, ExecutionContext.enclosingHere()));
        LeaseHeartbeat.Beat beat = context;
        IdempotencyContext previous = ContextSlot.bind(context);
        Object result;
        try {
            // The body, or its attempts within the scope's limit (retry, maxConcurrent): all under this claim.
            result = attempts.around(plan, keyText, token, context, body).proceed();
        } catch (Throwable t) {
            boolean interrupted = Thread.currentThread().isInterrupted();
            beat.stop();
            finishFailed(plan, keyText, token, t, PersonalFailures.isPersonal(t, interrupted));
            throw t;
        } finally {
            // Back to what was bound before. Where nothing was, the thread keeps its (weakly keyed) slot holding
            // null rather than removing it: removing it would make the next execution on this thread allocate the
            // slot's map entry again, on the path of every first call.
            if (previous == null) {
                ContextSlot.bind(null);
            } else {
                ContextSlot.restore(previous);
            }
        }
        if (plan.returnKind == ReturnKind.FUTURE) {
            return whenStageCompletes(plan, key, keyText, payload, token, startedAt, beat, result);
        }
        beat.stop();
        Object stored = plan.returnKind == ReturnKind.OPTIONAL
                ? (result == null ? null : ((Optional<?>) result).orElse(null))
                : plan.returnKind == ReturnKind.VOID ? null : result;
        save(plan, key, keyText, payload, token, startedAt, stored, result);
        return result;
    }

    private CompletableFuture<Object> whenStageCompletes(OperationPlan plan, CallKey key, String keyText,
                                                         byte[] payload, long token, long startedAt,
                                                         LeaseHeartbeat.Beat beat, Object result) {
        if (result == null) {
            beat.stop();
            finishFailed(plan, keyText, token, null, false);
            throw new NullPointerException(plan.operation + " returned a null CompletionStage");
        }
        CompletableFuture<Object> shared = new CompletableFuture<>();
        ((CompletionStage<?>) result).whenComplete((value, error) -> {
            Throwable cause = error == null ? null : unwrap(error);
            try {
                beat.stop();
                if (cause != null) {
                    finishFailed(plan, keyText, token, cause, PersonalFailures.isPersonal(cause, false));
                } else {
                    save(plan, key, keyText, payload, token, startedAt, value, value);
                }
            } catch (Throwable unexpected) {
                // save and finishFailed report their own troubles; this only keeps the shared future from never
                // completing, which would hang every caller of the key.
                LOG.log(Level.ERROR, plan.operation + ": finishing the claim of " + keyText + " failed", unexpected);
            } finally {
                if (cause != null) {
                    shared.completeExceptionally(cause);
                } else {
                    shared.complete(value);
                }
            }
        });
        return shared;
    }

    /** Stores the result; on success publishes it to the local results. Never throws: the work happened. */
    private void save(OperationPlan plan, CallKey key, String keyText, byte[] payload, long token, long startedAt,
                      Object stored, Object callerValue) {
        byte[] bytes;
        try {
            bytes = plan.codec.encode(stored);
        } catch (Throwable e) { // even an Error (a stack overflow in a deep value): the caller still gets its result
            recordUnstorable(plan, keyText, token, e);
            return;
        }
        long backoff = completionBackoff.toNanos();
        for (int attempt = 1; ; attempt++) {
            try {
                if (plan.store.complete(keyText, token, bytes, plan.policy.ttl())
                        || attempt > 1 && completedByThisClaim(plan, keyText, token)) {
                    if (plan.keepsResultOnCompletion) {
                        long expiresAt = clock.millis() + plan.policy.ttl().toMillis();
                        local.put(key, new LocalResults.Entry(plan.id, callerValue, payload,
                                plan.supersedeAt(startedAt), expiresAt));
                    }
                    events.emit(IdempotencyEventType.EXECUTED, plan.operation, keyText, token, "result stored");
                } else {
                    events.emit(IdempotencyEventType.LEASE_LOST, plan.operation, keyText, token,
                            "completion refused by fencing: another caller took the key over while this one ran");
                }
                return;
            } catch (Throwable e) {
                if (attempt >= completionAttempts || !pause(backoff)) {
                    events.emit(IdempotencyEventType.INDETERMINATE, plan.operation, keyText, token,
                            "the work was done but its result could not be stored after " + attempt
                                    + " attempts; the record stays in progress until its lease passes", e);
                    return;
                }
                backoff *= 2;
            }
        }
    }

    /**
     * Whether the record is completed under {@code token}: a retried completion refused because an earlier attempt
     * of it applied and only its answer was lost (a dropped connection). That is this execution's result stored, not
     * a lease lost to another caller. False when the store cannot say.
     */
    private static boolean completedByThisClaim(OperationPlan plan, String keyText, long token) {
        try {
            IdempotencyRecord record = plan.store.get(keyText).orElse(null);
            return record != null && record.state() == RecordState.COMPLETED && record.fencingToken() == token;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * The method ran but its result cannot be encoded. The key must not sit in progress, and running the method again
     * would repeat its side effect, so the record is finished as FAILED for the full ttl with an
     * {@link IdempotencyResultNotStoredException} that duplicates get at once. If even that cannot be written, the
     * claim is released.
     */
    private void recordUnstorable(OperationPlan plan, String keyText, long token, Throwable why) {
        String what = "the method ran and succeeded, but its result could not be encoded with the '"
                + plan.codec.codecName() + "' codec (" + why + ")";
        try {
            IdempotencyResultNotStoredException answer = new IdempotencyResultNotStoredException(plan.operation
                    + ": key " + keyText + " ran at " + clock.instant() + " and succeeded, but its result could not"
                    + " be stored (" + why + "); this answer is kept for ttl = " + plan.policy.ttl() + " so the work"
                    + " is not repeated by accident. Delete the record to run the method again, and declare a"
                    + " result type the codec can store.");
            if (plan.store.fail(keyText, token, plan.failureCodec.encode(answer), plan.policy.ttl())) {
                events.emit(IdempotencyEventType.RESULT_NOT_STORED, plan.operation, keyText, token, what
                        + "; recorded as FAILED for the ttl, so duplicates get IdempotencyResultNotStoredException",
                        why);
            } else {
                events.emit(IdempotencyEventType.LEASE_LOST, plan.operation, keyText, token, what
                        + "; and another caller had already taken the key over", why);
            }
        } catch (Throwable e) {
            e.addSuppressed(why);
            try {
                plan.store.release(keyText, token);
                events.emit(IdempotencyEventType.RESULT_NOT_STORED, plan.operation, keyText, token, what
                        + "; recording that failed too, so the claim was released and the next call runs again", e);
            } catch (Throwable released) {
                released.addSuppressed(e);
                events.emit(IdempotencyEventType.INDETERMINATE, plan.operation, keyText, token, what
                        + ", and neither recording it nor releasing the claim worked; the record stays in progress"
                        + " until its lease passes", released);
            }
        }
    }

    /**
     * Releases the claim, or records the failure when it is to be remembered. A personal failure (an Error, an
     * interrupt) is never remembered. Never throws.
     */
    void finishFailed(OperationPlan plan, String keyText, long token, Throwable failure, boolean personal) {
        try {
            // A full bulkhead says nothing about the operation: the next call may run it.
            boolean remembered = failure != null && !personal
                    && !(failure instanceof IdempotencyBulkheadFullException);
            boolean noRetry = remembered && isNoRetry(plan, failure);
            Duration keep = noRetry ? plan.policy.ttl() : plan.policy.failureTtl();
            byte[] encoded = remembered && !keep.isZero() ? encodeFailure(plan, failure) : null;
            boolean applied = encoded != null ? plan.store.fail(keyText, token, encoded, keep)
                    : plan.store.release(keyText, token);
            if (!applied) {
                events.emit(IdempotencyEventType.LEASE_LOST, plan.operation, keyText, token,
                        "the failure could not be recorded: another caller took the key over");
            }
        } catch (Throwable e) {
            LOG.log(Level.WARNING, plan.operation + ": the claim of " + keyText + " could not be released after"
                    + " the method failed; the key stays claimed until its lease passes", e);
        }
    }

    private static byte[] encodeFailure(OperationPlan plan, Throwable failure) {
        try {
            return plan.failureCodec.encode(failure);
        } catch (RuntimeException e) {
            return null; // a failure whose message cannot be read is released rather than remembered
        }
    }

    private static boolean isNoRetry(OperationPlan plan, Throwable failure) {
        for (Class<? extends Throwable> type : plan.policy.noRetryFor()) {
            if (type.isInstance(failure)) {
                return true;
            }
        }
        return false;
    }

    static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** Sleeps; false (with the interrupt flag restored) when interrupted. */
    static boolean pause(long nanos) {
        if (nanos <= 0) {
            return true;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
