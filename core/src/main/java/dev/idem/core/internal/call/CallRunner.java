package dev.idem.core.internal.call;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyReentryException;
import dev.idem.IdempotencyStoreException;
import dev.idem.OnInProgress;
import dev.idem.OnStoreError;
import dev.idem.OnUndecodable;
import dev.idem.StoreTransaction;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.Invocation;
import dev.idem.core.internal.codec.PersonalFailures;
import dev.idem.core.internal.codec.StoredResults;
import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.key.CanonicalEncoder;
import dev.idem.core.internal.key.Sha256;
import dev.idem.core.internal.plan.DeferredStore;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.core.internal.plan.ReturnKind;
import dev.idem.internal.ContextSlot;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The path of one call (ARCHITECTURE.md, "The path of one call").
 *
 * <h2>Order of checks</h2>
 * <ol>
 *   <li>Derive the key (no store, no lock), encoding the arguments once for key and payload.</li>
 *   <li>Local results: a completed result this engine saw, still within its ttl and window, is replayed. This is
 *       the hot path, and it is consulted even when the store is down.</li>
 *   <li>Re-entry: a call whose key is being executed further up this thread's call chain is refused at once;
 *       waiting for that execution would be waiting for itself.</li>
 *   <li>In-flight calls: a call identical to one running in this JVM joins it, within its {@code waitTimeout}
 *       (or is refused at once under {@code onInProgress = THROW}), exactly as a waiter for another process would.</li>
 *   <li>The leader claims the key in the store, in one atomic round trip, and either runs the method under a
 *       lease heartbeat ({@link ClaimedExecution}) or answers from the record the claim returned (replay,
 *       conflict, wait, in progress).</li>
 * </ol>
 *
 * <h2>Ordering that matters</h2>
 * A leader publishes its result to the local results before it removes its in-flight entry, and removes the entry
 * before it hands the outcome to joiners, so a caller arriving at any moment finds the result, or the running
 * execution, or a released key it may claim; never a finished execution to join. The entry is removed whatever
 * happened: the method returned, threw, or its result could not be saved.
 *
 * <h2>Failures that are the leader's own</h2>
 * An Error or an interrupt of the leader ({@link PersonalFailures}) is rethrown to the leader only. Joiners, who
 * were not interrupted, run the call again: one of them becomes the next leader.
 *
 * <h2>Calls from inside their own execution</h2>
 * A nested call with the key of an execution running further up the same thread is refused with
 * {@link IdempotencyReentryException}. A call from a stage that the execution itself waits for, completed on
 * another thread (an async self-retry such as {@code upstream.exceptionallyCompose(e -> self.retry(k))}), cannot be
 * told from a genuine concurrent duplicate: it joins, and its {@code waitTimeout} ends the wait, which fails the
 * execution's stage and releases the key. It can deadlock nothing for longer than that.
 */
public final class CallRunner implements AutoCloseable {
    private final Clock clock;
    private final Events events;
    private final InFlightCalls inFlight = new InFlightCalls();
    private final LocalResults local;
    private final LeaseHeartbeat heartbeat;
    private final ClaimedExecution execution;
    private final TransactionalExecution transactional;
    private final AbandonedClaims abandoned;
    private final String owner;
    private final OnStoreError defaultOnStoreError;
    /** The longest a caller waiting on a store's watch goes without claiming again (a lost signal). */
    private final long waitRecheckNanos;

    public CallRunner(Clock clock, Events events, LeaseHeartbeat heartbeat, String owner, OnStoreError defaultOnStoreError,
               int completionAttempts, Duration completionBackoff, AttemptRunner attempts,
               Duration waitRecheck, AbandonedClaims abandoned) {
        this.clock = clock;
        this.events = events;
        this.local = new LocalResults(clock);
        this.heartbeat = heartbeat;
        this.execution = new ClaimedExecution(clock, events, local, heartbeat, completionAttempts, completionBackoff,
                attempts);
        this.transactional = new TransactionalExecution(clock, events, local, owner, abandoned);
        this.abandoned = abandoned;
        this.owner = owner;
        this.defaultOnStoreError = defaultOnStoreError;
        this.waitRecheckNanos = waitRecheck.toNanos();
    }

    /** Runs {@code body} as {@code plan} promises, for a call with {@code args}. */
    public Object run(OperationPlan plan, Object[] args, Invocation body) throws Throwable {
        CallKey key;
        byte[] payload;
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            // The key is written into the encoder's probe first: a replay of a kept result (the hot path) makes
            // no key object; any other call makes its key from the probe.
            CallKey.Probe probe = plan.probe(encoder, args, plan.keyDependsOnTime() ? clock.millis() : 0L);
            LocalResults.Entry hit = local.lookup(plan.id, probe);
            if (hit != null) {
                if (!storedBySamePayload(plan, hit, encoder, args)) {
                    throw conflict(plan, probe.toKey().toString());
                }
                return replayed(plan, probe, hit);
            }
            key = probe.toKey();
            payload = plan.payloadDigest(encoder, args);
        } finally {
            encoder.release();
        }
        refuseReentry(plan, key);
        if (plan.policy.storeTransaction() != StoreTransaction.NONE) {
            return transactional.run(plan, key, payload, body); // no coalescing: see TransactionalExecution
        }
        if (!plan.policy.coalesce()) {
            Object outcome = claimAndRun(plan, key, payload, body);
            return plan.returnKind == ReturnKind.FUTURE ? ((CompletableFuture<?>) outcome).copy() : outcome;
        }
        long deadline = System.nanoTime() + plan.policy.waitTimeout().toNanos();
        while (true) {
            InFlightCalls.Execution mine = new InFlightCalls.Execution(payload);
            InFlightCalls.Execution running = inFlight.register(key, mine);
            if (running == null) {
                return lead(plan, key, payload, body, mine);
            }
            if (!plan.samePayload(running.payloadDigest, payload)) {
                throw conflict(plan, key.toString());
            }
            if (plan.policy.onInProgress() == OnInProgress.THROW) {
                throw inProgressHere(plan, key, "(onInProgress = THROW)");
            }
            events.emit(IdempotencyEventType.COALESCED, plan.operation, key, 0,
                    "joined the execution running in this JVM");
            if (plan.returnKind == ReturnKind.FUTURE) {
                return joinLater(plan, key, running, deadline, args, body);
            }
            InFlightCalls.Outcome outcome = await(plan, key, running, deadline);
            if (!outcome.personal) {
                if (outcome.failure != null) {
                    throw outcome.failure;
                }
                return outcome.value;
            }
            // The leader was interrupted or hit an Error: that is its own business. Run the call again.
        }
    }

    /** Whether {@code hit} was stored by a call with this call's payload (else the call is a conflict). */
    private static boolean storedBySamePayload(OperationPlan plan, LocalResults.Entry hit, CanonicalEncoder encoder,
                                               Object[] args) {
        return plan.payloadSameAsKey || plan.samePayload(hit.payloadDigest, plan.payloadDigest(encoder, args));
    }

    /** {@code hit}'s result, answered as a replay from this JVM's results (a completed future for a future). */
    private Object replayed(OperationPlan plan, Object key, LocalResults.Entry hit) {
        if (events.hasListeners()) { // REPLAYED is never logged: with no listener there is nothing to do
            events.emit(IdempotencyEventType.REPLAYED, plan.operation, key, 0, "from this JVM's results");
        }
        return plan.returnKind == ReturnKind.FUTURE ? CompletableFuture.completedFuture(hit.value) : hit.value;
    }

    /** Drops what this engine keeps for a plan that was replaced (its class was reloaded). */
    public void forgetPlan(long planId) {
        local.forgetPlan(planId);
    }

    /** How many executions are registered as running in this JVM (for tests and diagnostics). */
    public int inFlightCount() {
        return inFlight.size();
    }

    private void refuseReentry(OperationPlan plan, CallKey key) {
        IdempotencyContext current = ContextSlot.get();
        if (current instanceof ExecutionContext && ((ExecutionContext) current).isRunning(key)) {
            events.emit(IdempotencyEventType.IN_PROGRESS, plan.operation, key, current.fencingToken(),
                    "a call from inside its own execution");
            throw new IdempotencyReentryException(plan.operation + ": key " + key + " is being executed by this"
                    + " very call chain (an idempotent method called again with its own key from inside its"
                    + " execution); waiting for it would wait forever, so the inner call is refused. Retry outside"
                    + " the idempotent method, or give the inner call a key of its own.");
        }
    }

    private Object lead(OperationPlan plan, CallKey key, byte[] payload, Invocation body,
                        InFlightCalls.Execution mine) throws Throwable {
        Object outcome;
        try {
            outcome = claimAndRun(plan, key, payload, body);
        } catch (Throwable t) {
            boolean personal = PersonalFailures.isPersonal(t, Thread.currentThread().isInterrupted());
            inFlight.finish(key, mine);
            mine.fail(t, personal);
            throw t;
        }
        if (plan.returnKind != ReturnKind.FUTURE) {
            inFlight.finish(key, mine);
            mine.succeed(outcome);
            return outcome;
        }
        CompletableFuture<Object> own = new CompletableFuture<>();
        ((CompletableFuture<?>) outcome).whenComplete((value, error) -> {
            Throwable cause = error == null ? null : ClaimedExecution.unwrap(error);
            inFlight.finish(key, mine);
            if (cause != null) {
                mine.fail(cause, PersonalFailures.isPersonal(cause, false));
                own.completeExceptionally(cause);
            } else {
                mine.succeed(value);
                own.complete(value);
            }
        });
        return own;
    }

    /**
     * How often a joiner yields its core, checking whether the execution finished, before it parks. A short execution
     * (a few microseconds, as when a cached computation is coalesced) then often finishes while its joiners yield: on
     * a machine with fewer cores than busy threads, parking every joiner makes the leader wake each one (a system
     * call and a context switch apiece) and the joiners' wake-ups cost more than the execution. The count is where
     * {@code HotKeyBenchmarks.inFlight8Threads} stops gaining (docs/benchmarks.md, "Tuning constants"). Where cores
     * are idle a yield returns at once, so the joiner spins for a few microseconds at most before it parks; a long
     * execution costs its joiners nothing more.
     */
    private static final int YIELDS_BEFORE_PARKING = 16;

    /** Waits for the execution this caller joined, within the caller's own wait timeout. */
    private InFlightCalls.Outcome await(OperationPlan plan, CallKey key, InFlightCalls.Execution running,
                                        long deadline) {
        try {
            for (int i = 0; i < YIELDS_BEFORE_PARKING && !running.isDone(); i++) {
                Thread.yield();
            }
            return running.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw inProgressHere(plan, key, "and did not finish within waitTimeout = " + plan.policy.waitTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdempotencyInProgressException(plan.operation + ": interrupted while waiting for the"
                    + " execution of " + key + " running in this JVM; that execution goes on");
        } catch (ExecutionException e) {
            throw new IllegalStateException("an execution always completes with an outcome", e);
        }
    }

    /**
     * A joiner's own future for a {@code CompletionStage} method: completing or cancelling it leaves the shared
     * execution alone, and it fails with {@link IdempotencyInProgressException} when the execution has not finished
     * within the caller's wait timeout.
     */
    private CompletableFuture<Object> joinLater(OperationPlan plan, CallKey key, InFlightCalls.Execution running,
                                                long deadline, Object[] args, Invocation body) {
        CompletableFuture<Object> own = new CompletableFuture<>();
        CompletableFuture<InFlightCalls.Outcome> bounded = running.copy()
                .orTimeout(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        bounded.whenComplete((outcome, timedOut) -> {
            if (timedOut != null) {
                own.completeExceptionally(inProgressHere(plan, key, "and did not finish within waitTimeout = "
                        + plan.policy.waitTimeout() + " (if this call came from a stage of that very execution, an"
                        + " async self-retry, retry outside the idempotent method)"));
            } else if (outcome.personal) {
                rerun(plan, args, body, own);
            } else if (outcome.failure != null) {
                own.completeExceptionally(outcome.failure);
            } else {
                own.complete(outcome.value);
            }
        });
        return own;
    }

    /** Completes {@code into} as {@code stage} completes, with the stage's failure unwrapped from CompletionException. */
    private static void relay(CompletionStage<?> stage, CompletableFuture<Object> into) {
        stage.whenComplete((value, error) -> {
            if (error != null) {
                into.completeExceptionally(ClaimedExecution.unwrap(error));
            } else {
                into.complete(value);
            }
        });
    }

    /** Runs the call again for a joiner whose leader failed on its own account, into {@code into}. */
    private void rerun(OperationPlan plan, Object[] args, Invocation body, CompletableFuture<Object> into) {
        try {
            relay((CompletableFuture<?>) run(plan, args, body), into);
        } catch (Throwable t) {
            into.completeExceptionally(t);
        }
    }

    /**
     * Claims the key and runs or answers. For FUTURE methods the returned object is a CompletableFuture of the
     * result's content, private to the engine; callers get copies.
     */
    private Object claimAndRun(OperationPlan plan, CallKey key, byte[] payload, Invocation body) throws Throwable {
        String keyText = plan.storeKey(key);
        String payloadHex = Sha256.hex(payload, Sha256.LENGTH);
        ClaimRequest request = plan.claimRequest(keyText, payloadHex, owner);
        long deadline = System.nanoTime() + plan.policy.waitTimeout().toNanos(); // the claim's own wait counts
        ClaimOutcome outcome;
        try {
            outcome = plan.store.claim(request);
        } catch (RuntimeException e) {
            return storeUnavailable(plan, keyText, body, e);
        }
        String unreadable = null; // why the record being superseded could not be read (onUndecodable = RUN_AGAIN)
        while (true) {
            if (outcome instanceof ClaimOutcome.Acquired) {
                ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) outcome;
                long startedAt = clock.millis();
                IdempotencyRecord replaced = acquired.replaced();
                if (replaced != null) {
                    if (replaced.state() == RecordState.IN_PROGRESS) {
                        // The window counts from the first start, on this engine's clock.
                        startedAt = replaced.startedAt().toEpochMilli() + LocalResults.storeOffset(acquired, clock);
                    }
                    if (unreadable != null && replaced.state() == RecordState.COMPLETED) {
                        events.emit(IdempotencyEventType.RESULT_UNREADABLE, plan.operation, keyText,
                                acquired.fencingToken(), "the stored result could not be decoded (" + unreadable
                                        + "); onUndecodable = RUN_AGAIN, so the method runs again");
                    } else if (replaced.state() == RecordState.IN_PROGRESS) {
                        AbandonedClaims.Settled settled = abandoned.settle(plan, keyText, acquired); // onAbandoned
                        if (settled != null) {
                            return settled.value();
                        }
                    } else {
                        reportLateDuplicate(plan, keyText, acquired);
                    }
                }
                return execution.run(plan, key, keyText, payload, acquired.fencingToken(), startedAt, body);
            }
            IdempotencyRecord record = ((ClaimOutcome.Existing) outcome).record();
            if (!record.payloadHash().equals(payloadHex)) {
                throw conflict(plan, keyText);
            }
            switch (record.state()) {
                case COMPLETED:
                    try {
                        return replay(plan, key, keyText, payload, record, LocalResults.storeOffset(outcome, clock));
                    } catch (StoredResults.UnreadableResultException e) {
                        if (plan.policy.onUndecodable() != OnUndecodable.RUN_AGAIN) {
                            throw unreadable(plan, keyText, record, e);
                        }
                        unreadable = e.getMessage();
                        try {
                            // A window of a millisecond supersedes the finished record in one atomic claim, so of
                            // many callers meeting the unreadable record exactly one runs the method again.
                            outcome = plan.store.claim(new ClaimRequest(keyText, payloadHex, owner,
                                    plan.policy.lease(), Duration.ofMillis(1), request.lockWait()));
                        } catch (RuntimeException storeDown) {
                            throw storeError(plan, keyText, "while superseding an unreadable result", storeDown);
                        }
                        continue;
                    }
                case FAILED:
                    events.emit(IdempotencyEventType.FAILURE_REPLAYED, plan.operation, keyText,
                            record.fencingToken(), "a remembered failure");
                    throw plan.failureCodec.decode(record.result(), keyText);
                default:
                    if (plan.policy.onInProgress() == OnInProgress.THROW || deadline - System.nanoTime() <= 0) {
                        throw inProgress(plan, keyText, record);
                    }
                    try {
                        outcome = new ElsewhereWait(plan.store, request, waitRecheckNanos).awaitEnd(deadline);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IdempotencyInProgressException(plan.operation + ": interrupted while waiting for"
                                + " the execution of " + keyText + " in another process");
                    } catch (RuntimeException e) {
                        throw storeError(plan, keyText, "while waiting for another execution", e);
                    }
            }
        }
    }

    /** Replays {@code record}, kept locally with its instants moved onto the engine's clock by {@code storeOffset}. */
    private Object replay(OperationPlan plan, CallKey key, String keyText, byte[] payload, IdempotencyRecord record,
                          long storeOffset) throws StoredResults.UnreadableResultException {
        Object stored = plan.codec.decode(record.result());
        Object value = plan.returnKind == ReturnKind.OPTIONAL ? Optional.ofNullable(stored)
                : plan.returnKind == ReturnKind.VOID ? null : stored;
        local.put(key, new LocalResults.Entry(plan.id, value, payload,
                plan.supersedeAt(record.startedAt().toEpochMilli() + storeOffset),
                record.expiresAt().toEpochMilli() + storeOffset));
        events.emit(IdempotencyEventType.REPLAYED, plan.operation, keyText, record.fencingToken(), "from the store");
        return plan.returnKind == ReturnKind.FUTURE ? CompletableFuture.completedFuture(value) : value;
    }

    private Object storeUnavailable(OperationPlan plan, String keyText, Invocation body, RuntimeException e)
            throws Throwable {
        if (e instanceof IdempotencyConfigurationException || e == DeferredStore.creationFailure(plan.store)) {
            // Not an outage but a mistake (a bad setting, a missing table): it does not pass by itself, so running
            // unprotected would be for good. Fail closed, with the error as it is, as planning would have.
            events.emit(IdempotencyEventType.STORE_ERROR, plan.operation, keyText, 0,
                    "the store cannot serve (not an outage); the method did not run, whatever onStoreError says", e);
            throw e;
        }
        if (plan.policy.onStoreError() == OnStoreError.FAIL_OPEN || defaultOnStoreError == OnStoreError.FAIL_OPEN) {
            events.emit(IdempotencyEventType.FAIL_OPEN, plan.operation, keyText, 0,
                    "the store failed before the call; the method runs unprotected", e);
            Object result = body.proceed();
            if (plan.returnKind != ReturnKind.FUTURE) {
                return result;
            }
            CompletableFuture<Object> shared = new CompletableFuture<>();
            relay((CompletionStage<?>) result, shared);
            return shared;
        }
        throw storeError(plan, keyText, "before the call; the method did not run (onStoreError = FAIL_CLOSED)", e);
    }

    /** The record's result cannot be decoded and the method may not run again: say what, when, and how to clear. */
    private IdempotencyStoreException unreadable(OperationPlan plan, String keyText, IdempotencyRecord record,
                                                 StoredResults.UnreadableResultException e) {
        events.emit(IdempotencyEventType.RESULT_UNREADABLE, plan.operation, keyText, record.fencingToken(),
                "refused: " + e.getMessage(), e);
        return new IdempotencyStoreException(plan.operation + ": the stored result of key " + keyText + " (the"
                + " execution completed at " + record.completedAt() + ", kept until " + record.expiresAt() + ") cannot"
                + " be decoded: " + e.getMessage() + ". The operation did run, so it is not run again by default."
                + " To clear it, delete the record (IdempotencyStore.delete(\"" + keyText + "\")) or let it expire;"
                + " if running the method twice is safe, set @Idempotent(onUndecodable = RUN_AGAIN).", e);
    }

    private IdempotencyStoreException storeError(OperationPlan plan, String keyText, String when,
                                                 RuntimeException e) {
        events.emit(IdempotencyEventType.STORE_ERROR, plan.operation, keyText, 0, "store failed " + when, e);
        return new IdempotencyStoreException(plan.operation + ": the idempotency store failed " + when + " (key "
                + keyText + "): " + e.getMessage(), e);
    }

    private IdempotencyConflictException conflict(OperationPlan plan, String keyText) {
        events.emit(IdempotencyEventType.CONFLICT, plan.operation, keyText, 0, "same key, other payload");
        return new IdempotencyConflictException(plan.operation + ": key " + keyText + " was already used with"
                + " other arguments; the same operation id with another payload is a bug, not a retry, so the"
                + " method did not run");
    }

    private IdempotencyInProgressException inProgress(OperationPlan plan, String keyText, IdempotencyRecord record) {
        events.emit(IdempotencyEventType.IN_PROGRESS, plan.operation, keyText, record.fencingToken(),
                "held by " + record.owner());
        String how = plan.policy.onInProgress() == OnInProgress.THROW ? "(onInProgress = THROW)"
                : "and did not finish within waitTimeout = " + plan.policy.waitTimeout();
        return new IdempotencyInProgressException(plan.operation + ": key " + keyText + " is being executed by "
                + record.owner() + " (lease until " + record.leaseUntil() + ") " + how + "; the method did not run");
    }

    private IdempotencyInProgressException inProgressHere(OperationPlan plan, CallKey key, String how) {
        events.emit(IdempotencyEventType.IN_PROGRESS, plan.operation, key, 0, "running in this JVM " + how);
        return new IdempotencyInProgressException(plan.operation + ": key " + key + " is being executed in this JVM "
                + how + "; the method did not run for this caller");
    }

    private void reportLateDuplicate(OperationPlan plan, String keyText, ClaimOutcome.Acquired acquired) {
        events.emit(IdempotencyEventType.LATE_DUPLICATE, plan.operation, keyText, acquired.fencingToken(),
                "a duplicate arrived after window = " + plan.policy.window() + " (first execution started "
                        + acquired.replaced().startedAt() + "); it ran again");
    }

    @Override
    public void close() {
        heartbeat.close();
    }
}
