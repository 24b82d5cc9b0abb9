package dev.idem.core.internal;

import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyStoreException;
import dev.idem.OnInProgress;
import dev.idem.OnStoreError;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.Invocation;
import dev.idem.internal.ContextSlot;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The path of one call (ARCHITECTURE.md, "The path of one call").
 *
 * <h2>Order of checks</h2>
 * <ol>
 *   <li>Derive the key (no store, no lock).</li>
 *   <li>Local results: a completed result this engine saw, still within its ttl and window, is replayed. This is
 *       the hot path, and it is consulted even when the store is down.</li>
 *   <li>In-flight calls: a call identical to one running in this JVM joins it and gets its own copy of the
 *       shared outcome.</li>
 *   <li>The leader claims the key in the store, in one atomic round trip, and either runs the method under a
 *       lease heartbeat or answers from the record the claim returned (replay, conflict, wait, in progress).</li>
 * </ol>
 *
 * <h2>Ordering that matters</h2>
 * A leader publishes its result to the local results <em>before</em> it completes the shared future and removes
 * its in-flight entry, so a caller arriving in between finds the result in one place or the other and never runs
 * the method a second time. The in-flight entry is removed whether the method returned or threw.
 *
 * <h2>After the work</h2>
 * Once the method has run, its result is returned to the caller whatever happens to the store: saving is retried
 * with backoff, then reported as INDETERMINATE; a completion refused by fencing is reported as LEASE_LOST.
 */
public final class CallRunner implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(CallRunner.class.getName());
    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final Clock clock;
    private final Events events;
    private final InFlightCalls inFlight = new InFlightCalls();
    private final LocalResults local;
    private final LeaseHeartbeat heartbeat;
    private final String owner;
    private final OnStoreError defaultOnStoreError;
    private final int completionAttempts;
    private final Duration completionBackoff;

    CallRunner(Clock clock, Events events, LeaseHeartbeat heartbeat, String owner, OnStoreError defaultOnStoreError,
               int completionAttempts, Duration completionBackoff) {
        this.clock = clock;
        this.events = events;
        this.local = new LocalResults(clock);
        this.heartbeat = heartbeat;
        this.owner = owner;
        this.defaultOnStoreError = defaultOnStoreError;
        this.completionAttempts = completionAttempts;
        this.completionBackoff = completionBackoff;
    }

    /** Runs {@code body} as {@code plan} promises, for a call with {@code args}. */
    public Object run(OperationPlan plan, Object[] args, Invocation body) throws Throwable {
        CallKey key = plan.identify(args, plan.keyDependsOnTime() ? clock.millis() : 0L);
        byte[] payload = null;

        LocalResults.Entry hit = local.lookup(key);
        if (hit != null) {
            if (!plan.payloadSameAsKey) {
                payload = plan.payloadDigest(args);
                if (!plan.samePayload(hit.payloadDigest, payload)) {
                    throw conflict(plan, key.toString());
                }
            }
            events.emit(IdempotencyEventType.REPLAYED, plan.operation, key, 0, "from this JVM's results");
            return plan.returnKind == ReturnKind.FUTURE ? CompletableFuture.completedFuture(hit.value) : hit.value;
        }

        if (payload == null) {
            payload = plan.payloadDigest(args);
        }
        if (!plan.policy.coalesce()) {
            Object outcome = claimAndRun(plan, key, payload, body);
            return plan.returnKind == ReturnKind.FUTURE ? ((CompletableFuture<?>) outcome).copy() : outcome;
        }
        InFlightCalls.Execution mine = new InFlightCalls.Execution(payload);
        InFlightCalls.Execution running = inFlight.register(key, mine);
        if (running != null) {
            return join(plan, key, payload, running);
        }
        return lead(plan, key, payload, body, mine);
    }

    /** How many executions are registered as running in this JVM (for tests and diagnostics). */
    public int inFlightCount() {
        return inFlight.size();
    }

    private Object lead(OperationPlan plan, CallKey key, byte[] payload, Invocation body,
                        InFlightCalls.Execution mine) throws Throwable {
        Object outcome;
        try {
            outcome = claimAndRun(plan, key, payload, body);
        } catch (Throwable t) {
            mine.fail(t);
            inFlight.finish(key, mine);
            throw t;
        }
        if (plan.returnKind == ReturnKind.FUTURE) {
            CompletableFuture<Object> own = mine.joiner();
            ((CompletableFuture<?>) outcome).whenComplete((value, error) -> {
                if (error != null) {
                    mine.fail(unwrap(error));
                } else {
                    mine.succeed(value);
                }
                inFlight.finish(key, mine);
            });
            return own;
        }
        mine.succeed(outcome);
        inFlight.finish(key, mine);
        return outcome;
    }

    private Object join(OperationPlan plan, CallKey key, byte[] payload, InFlightCalls.Execution running)
            throws Throwable {
        if (!plan.samePayload(running.payloadDigest, payload)) {
            throw conflict(plan, key.toString());
        }
        events.emit(IdempotencyEventType.COALESCED, plan.operation, key, 0, "joined the execution running in this JVM");
        CompletableFuture<Object> own = running.joiner(); // cancelling it leaves the shared execution alone
        if (plan.returnKind == ReturnKind.FUTURE) {
            return own;
        }
        try {
            return own.get();
        } catch (ExecutionException e) {
            throw e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdempotencyInProgressException(plan.operation + ": interrupted while waiting for the"
                    + " execution of " + key + " running in this JVM; that execution goes on");
        }
    }

    /**
     * Claims the key and runs or answers. For FUTURE methods the returned object is a CompletableFuture of the
     * result's content, private to the engine; callers get copies.
     */
    private Object claimAndRun(OperationPlan plan, CallKey key, byte[] payload, Invocation body) throws Throwable {
        String keyText = key.toString();
        String payloadHex = Sha256.hex(payload, Sha256.LENGTH);
        ClaimRequest request = new ClaimRequest(keyText, payloadHex, owner, plan.policy.lease(),
                plan.fixedWindow ? Duration.ZERO : plan.policy.window());
        ClaimOutcome outcome;
        try {
            outcome = plan.store.claim(request);
        } catch (RuntimeException e) {
            return storeUnavailable(plan, keyText, body, e);
        }
        long deadline = System.nanoTime() + plan.policy.waitTimeout().toNanos();
        long pause = FIRST_POLL_NANOS;
        while (true) {
            if (outcome instanceof ClaimOutcome.Acquired) {
                ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) outcome;
                long startedAt = clock.millis();
                IdempotencyRecord replaced = acquired.replaced();
                if (replaced != null) {
                    if (replaced.state() == RecordState.IN_PROGRESS) {
                        startedAt = replaced.startedAt().toEpochMilli(); // the window counts from the first start
                    }
                    reportReplaced(plan, keyText, acquired);
                }
                return execute(plan, key, keyText, payload, acquired.fencingToken(), startedAt, body);
            }
            IdempotencyRecord record = ((ClaimOutcome.Existing) outcome).record();
            if (!record.payloadHash().equals(payloadHex)) {
                throw conflict(plan, keyText);
            }
            switch (record.state()) {
                case COMPLETED:
                    return replay(plan, key, keyText, payload, record);
                case FAILED:
                    events.emit(IdempotencyEventType.FAILURE_REPLAYED, plan.operation, keyText,
                            record.fencingToken(), "a remembered failure");
                    throw plan.failureCodec.decode(record.result(), keyText);
                default:
                    long remaining = deadline - System.nanoTime();
                    if (plan.policy.onInProgress() == OnInProgress.THROW || remaining <= 0) {
                        throw inProgress(plan, keyText, record);
                    }
                    pauseWhileWaiting(plan, keyText, Math.min(pause, remaining));
                    pause = Math.min(pause * 2, MAX_POLL_NANOS);
                    try {
                        outcome = plan.store.claim(request); // a claim, not a read: it takes over a dead owner's key
                    } catch (RuntimeException e) {
                        throw storeError(plan, keyText, "while waiting for another execution", e);
                    }
            }
        }
    }

    private Object replay(OperationPlan plan, CallKey key, String keyText, byte[] payload, IdempotencyRecord record) {
        Object stored = plan.codec.decode(record.result(), keyText);
        Object value = plan.returnKind == ReturnKind.OPTIONAL ? Optional.ofNullable(stored)
                : plan.returnKind == ReturnKind.VOID ? null : stored;
        local.put(key, new LocalResults.Entry(value, payload, plan.supersedeAt(record.startedAt().toEpochMilli()),
                record.expiresAt().toEpochMilli()));
        events.emit(IdempotencyEventType.REPLAYED, plan.operation, keyText, record.fencingToken(), "from the store");
        return plan.returnKind == ReturnKind.FUTURE ? CompletableFuture.completedFuture(value) : value;
    }

    private Object execute(OperationPlan plan, CallKey key, String keyText, byte[] payload, long token,
                           long startedAt, Invocation body) throws Throwable {
        LeaseHeartbeat.Beat beat = heartbeat.start(plan.store, keyText, token, plan.policy.lease(),
                (k, t) -> events.emit(IdempotencyEventType.LEASE_LOST, plan.operation, k, t,
                        "the lease was renewed too late and another caller took the key over"));
        IdempotencyContext previous = ContextSlot.bind(new ExecutionContext(keyText, token));
        Object result;
        try {
            result = body.proceed();
        } catch (Throwable t) {
            beat.stop();
            recordFailure(plan, keyText, token, t);
            throw t;
        } finally {
            ContextSlot.restore(previous);
        }
        if (plan.returnKind == ReturnKind.FUTURE) {
            if (result == null) {
                beat.stop();
                recordFailure(plan, keyText, token, null);
                throw new NullPointerException(plan.operation + " returned a null CompletionStage");
            }
            CompletableFuture<Object> shared = new CompletableFuture<>();
            ((CompletionStage<?>) result).whenComplete((value, error) -> {
                beat.stop();
                if (error != null) {
                    Throwable cause = unwrap(error);
                    recordFailure(plan, keyText, token, cause);
                    shared.completeExceptionally(cause);
                } else {
                    save(plan, key, keyText, payload, token, startedAt, value, value);
                    shared.complete(value);
                }
            });
            return shared;
        }
        beat.stop();
        Object stored = plan.returnKind == ReturnKind.OPTIONAL ? (result == null ? null : ((Optional<?>) result).orElse(null))
                : plan.returnKind == ReturnKind.VOID ? null : result;
        save(plan, key, keyText, payload, token, startedAt, stored, result);
        return result;
    }

    /** Stores the result; on success publishes it to the local results. Never throws: the work happened. */
    private void save(OperationPlan plan, CallKey key, String keyText, byte[] payload, long token, long startedAt,
                      Object stored, Object callerValue) {
        byte[] bytes;
        try {
            bytes = plan.codec.encode(stored);
        } catch (IOException | RuntimeException e) {
            events.emit(IdempotencyEventType.INDETERMINATE, plan.operation, keyText, token,
                    "the result could not be encoded (" + e + "); the record stays in progress until its lease"
                            + " passes", e);
            return;
        }
        long backoff = completionBackoff.toNanos();
        for (int attempt = 1; ; attempt++) {
            try {
                if (plan.store.complete(keyText, token, bytes, plan.policy.ttl())) {
                    long expiresAt = clock.millis() + plan.policy.ttl().toMillis();
                    local.put(key, new LocalResults.Entry(callerValue, payload, plan.supersedeAt(startedAt),
                            expiresAt));
                    events.emit(IdempotencyEventType.EXECUTED, plan.operation, keyText, token, "result stored");
                } else {
                    events.emit(IdempotencyEventType.LEASE_LOST, plan.operation, keyText, token,
                            "completion refused by fencing: another caller took the key over while this one ran");
                }
                return;
            } catch (RuntimeException e) {
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

    /** Releases the claim, or records the failure when it is to be remembered. Never throws. */
    private void recordFailure(OperationPlan plan, String keyText, long token, Throwable failure) {
        try {
            boolean applied;
            if (failure != null && isNoRetry(plan, failure)) {
                applied = plan.store.fail(keyText, token, plan.failureCodec.encode(failure), plan.policy.ttl());
            } else if (failure != null && !plan.policy.failureTtl().isZero()) {
                applied = plan.store.fail(keyText, token, plan.failureCodec.encode(failure),
                        plan.policy.failureTtl());
            } else {
                applied = plan.store.release(keyText, token);
            }
            if (!applied) {
                events.emit(IdempotencyEventType.LEASE_LOST, plan.operation, keyText, token,
                        "the failure could not be recorded: another caller took the key over");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, plan.operation + ": the claim of " + keyText + " could not be released after"
                    + " the method failed; the key stays claimed until its lease passes", e);
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

    private Object storeUnavailable(OperationPlan plan, String keyText, Invocation body, RuntimeException e)
            throws Throwable {
        if (plan.policy.onStoreError() == OnStoreError.FAIL_OPEN || defaultOnStoreError == OnStoreError.FAIL_OPEN) {
            events.emit(IdempotencyEventType.FAIL_OPEN, plan.operation, keyText, 0,
                    "the store failed before the call; the method runs unprotected", e);
            Object result = body.proceed();
            if (plan.returnKind != ReturnKind.FUTURE) {
                return result;
            }
            CompletableFuture<Object> shared = new CompletableFuture<>();
            ((CompletionStage<?>) result).whenComplete((v, err) -> {
                if (err != null) {
                    shared.completeExceptionally(unwrap(err));
                } else {
                    shared.complete(v);
                }
            });
            return shared;
        }
        throw storeError(plan, keyText, "before the call; the method did not run (onStoreError = FAIL_CLOSED)", e);
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

    private void reportReplaced(OperationPlan plan, String keyText, ClaimOutcome.Acquired acquired) {
        IdempotencyRecord replaced = acquired.replaced();
        if (replaced.state() == RecordState.IN_PROGRESS) {
            events.emit(IdempotencyEventType.TAKEOVER, plan.operation, keyText, acquired.fencingToken(),
                    "the lease of " + replaced.owner() + " passed at " + replaced.leaseUntil());
        } else {
            events.emit(IdempotencyEventType.LATE_DUPLICATE, plan.operation, keyText, acquired.fencingToken(),
                    "a duplicate arrived after window = " + plan.policy.window() + " (first execution started "
                            + replaced.startedAt() + "); it ran again");
        }
    }

    private static void pauseWhileWaiting(OperationPlan plan, String keyText, long nanos) {
        if (!pause(nanos)) {
            throw new IdempotencyInProgressException(plan.operation + ": interrupted while waiting for the"
                    + " execution of " + keyText + " in another process");
        }
    }

    /** Sleeps; false (with the interrupt flag restored) when interrupted. */
    private static boolean pause(long nanos) {
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

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    @Override
    public void close() {
        heartbeat.close();
    }
}
