package dev.idem.core.internal.call;

import dev.idem.IdempotencyBulkheadFullException;
import dev.idem.IdempotencyContext;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.Invocation;
import dev.idem.core.RetryPolicy;
import dev.idem.core.internal.codec.PersonalFailures;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.core.internal.plan.ReturnKind;
import dev.idem.core.internal.retry.BackOff;
import dev.idem.core.internal.retry.Bulkhead;
import dev.idem.core.internal.retry.RetryRules;
import dev.idem.core.internal.retry.RetryTimer;
import dev.idem.internal.ContextSlot;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.random.RandomGenerator;

/**
 * Runs the body of a claimed execution as its policy says: within its scope's concurrency limit
 * ({@code maxConcurrent}), and attempt after attempt while it fails with a retryable exception
 * ({@code retry = @Retry(...)}). {@link ClaimedExecution} runs what {@link #around} returns in place of the body,
 * so every attempt shares the claim: the key, the fencing token, the lease heartbeat (which goes on beating through
 * the pauses) and the in-flight entry that coalesced callers wait on. They get the final outcome, never an
 * intermediate failure, and one of them giving up leaves the attempts alone.
 *
 * <h2>Blocking and asynchronous bodies</h2>
 * A method returning a value sleeps between attempts, and waits for a permit, on its caller's thread. A method
 * returning a {@code CompletionStage} never blocks a thread: its first attempt runs on the caller's thread (when a
 * permit is free), and later attempts, or a first attempt that had to queue, are scheduled on the
 * {@link RetryTimer}, with the execution's {@link IdempotencyContext} bound around each of them.
 *
 * <h2>The permit</h2>
 * A permit is taken after the claim, so replays and conflicts never queue for one, and is held from the first
 * attempt until the last has finished, pauses included: an upstream that answers 429 gets fewer requests, not more.
 * A call that cannot get one within {@code waitTimeout} fails with {@link IdempotencyBulkheadFullException}, which
 * is never remembered as the operation's failure.
 */
public final class AttemptRunner {
    private final Events events;
    private final Clock clock;
    private final RetryRules rules;
    private final BackOff backOff;
    private final RetryTimer timer;
    /** Keyed by scope and limit: a class reloaded with another limit gets a bulkhead of its own. */
    private final ConcurrentMap<String, Bulkhead> bulkheads = new ConcurrentHashMap<>();

    /**
     * @param random where back-off pauses are drawn from, or null for a thread-local random
     * @param timer  how pauses are waited, or null for sleeping and the JDK's shared delayer
     */
    public AttemptRunner(Events events, Clock clock, RetryRules rules, RandomGenerator random, RetryTimer timer) {
        this.events = events;
        this.clock = clock;
        this.rules = rules;
        this.backOff = new BackOff(random != null ? random : ThreadLocalRandomGenerator.INSTANCE);
        this.timer = timer != null ? timer : SystemTimer.INSTANCE;
    }

    /**
     * What runs in place of {@code body} for an execution of {@code plan} holding claim {@code token}: {@code body}
     * itself when the plan neither retries nor limits concurrency (no cost on the common path).
     */
    Invocation around(OperationPlan plan, String keyText, long token, ExecutionContext context, Invocation body) {
        RetryPolicy retry = plan.policy.retry();
        int limit = plan.policy.maxConcurrent();
        if (!retry.retries() && limit == 0) {
            return body;
        }
        Bulkhead bulkhead = limit == 0 ? null : bulkhead(plan);
        if (plan.returnKind == ReturnKind.FUTURE) {
            Invocation attempt = () -> inContext(context, body);
            return () -> startAsync(new Execution(plan, keyText, token, attempt), bulkhead);
        }
        return () -> runBlocking(new Execution(plan, keyText, token, body), bulkhead);
    }

    /** How many calls of {@code scope} are queued for a permit in this JVM right now. */
    public int queuedFor(String scope) {
        int queued = 0;
        for (java.util.Map.Entry<String, Bulkhead> e : bulkheads.entrySet()) {
            if (e.getKey().startsWith(scope + "\u0000")) {
                queued += e.getValue().waiting();
            }
        }
        return queued;
    }

    private Bulkhead bulkhead(OperationPlan plan) {
        String scope = scopeOf(plan);
        int limit = plan.policy.maxConcurrent();
        return bulkheads.computeIfAbsent(scope + "\u0000" + limit, k -> new Bulkhead(limit));
    }

    private static String scopeOf(OperationPlan plan) {
        return plan.policy.scope().isEmpty() ? plan.operation : plan.policy.scope();
    }

    // ---- methods that return a value -------------------------------------------------------------------------

    private Object runBlocking(Execution x, Bulkhead bulkhead) throws Throwable {
        if (bulkhead == null) {
            return retryBlocking(x);
        }
        boolean acquired;
        try {
            acquired = bulkhead.acquire(x.plan.policy.waitTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // an interrupt is the caller's own: the claim is released, not failed
            throw full(x.plan, "the call was interrupted while queued for one");
        }
        if (!acquired) {
            throw full(x.plan, "none was free within waitTimeout = " + x.plan.policy.waitTimeout());
        }
        try {
            return retryBlocking(x);
        } finally {
            bulkhead.release();
        }
    }

    private Object retryBlocking(Execution x) throws Throwable {
        for (int attempt = 1; ; attempt++) {
            try {
                return x.body.proceed();
            } catch (Throwable failure) {
                Duration pause = pauseAfter(x, attempt, failure, Thread.currentThread().isInterrupted());
                if (pause == null) {
                    throw failure;
                }
                if (!timer.sleep(pause)) {
                    gaveUp(x, attempt, failure, "the caller running it was interrupted while waiting for attempt "
                            + (attempt + 1));
                    throw failure;
                }
            }
        }
    }

    // ---- methods that return a CompletionStage ---------------------------------------------------------------

    /** The first attempt's stage (or a stage of all attempts); a null stage is returned as such. */
    private Object startAsync(Execution x, Bulkhead bulkhead) throws Throwable {
        if (bulkhead == null) {
            return retryAsync(x);
        }
        CompletableFuture<Void> permit = bulkhead.acquireAsync(x.plan.policy.waitTimeout());
        if (permit.isDone() && !permit.isCompletedExceptionally()) {
            Object stage;
            try {
                stage = retryAsync(x); // a free permit: the first attempt runs here, as without a limit
            } catch (Throwable t) {
                bulkhead.release();
                throw t;
            }
            if (stage == null) {
                bulkhead.release();
                return null;
            }
            ((CompletionStage<?>) stage).whenComplete((value, error) -> bulkhead.release());
            return stage;
        }
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        permit.whenComplete((granted, timedOut) -> {
            if (timedOut != null) {
                outcome.completeExceptionally(full(x.plan, "none was free within waitTimeout = "
                        + x.plan.policy.waitTimeout()));
                return;
            }
            // Off the thread that released the permit: that is another execution's completion.
            timer.schedule(Duration.ZERO, () -> {
                outcome.whenComplete((value, error) -> bulkhead.release());
                x.later(1, outcome);
            });
        });
        return outcome;
    }

    /** Runs the first attempt here; returns its stage, or a stage of all attempts when it may be retried. */
    private Object retryAsync(Execution x) throws Throwable {
        if (!x.plan.policy.retry().retries()) {
            return x.body.proceed();
        }
        Object first;
        try {
            first = x.body.proceed();
        } catch (Throwable failure) {
            Duration pause = pauseAfter(x, 1, failure, Thread.currentThread().isInterrupted());
            if (pause == null) {
                throw failure; // thrown at once, as a body that does not retry would
            }
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            timer.schedule(pause, () -> x.later(2, outcome));
            return outcome;
        }
        if (first == null) {
            return null;
        }
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        x.whenDone(1, (CompletionStage<?>) first, outcome);
        return outcome;
    }

    // ---- deciding ---------------------------------------------------------------------------------------------

    /**
     * The pause before the attempt after {@code failed}, reported as RETRY; or null when {@code failure} is final
     * (reported as GAVE_UP when the execution had retried or ran out of attempts).
     */
    private Duration pauseAfter(Execution x, int failed, Throwable failure, boolean interrupted) {
        RetryPolicy retry = x.plan.policy.retry();
        if (!retry.retries()) {
            return null;
        }
        if (PersonalFailures.isPersonal(failure, interrupted)
                || !rules.isRetryable(retry, x.plan.policy.noRetryFor(), failure)) {
            if (failed > 1) {
                gaveUp(x, failed, failure, "it is not retryable");
            }
            return null;
        }
        if (failed >= retry.maxAttempts()) {
            gaveUp(x, failed, failure, "no attempt is left (maxAttempts = " + retry.maxAttempts() + ")");
            return null;
        }
        Duration retryAfter = rules.retryAfter(failure, clock.instant());
        Duration pause = backOff.pause(retry, failed, retryAfter);
        events.emit(IdempotencyEventType.RETRY, x.plan.operation, x.keyText, x.token, "attempt " + failed + " of "
                + retry.maxAttempts() + " failed with " + failure.getClass().getName()
                + (retryAfter == null ? "" : " (Retry-After " + retryAfter + ")") + "; attempt " + (failed + 1)
                + " in " + pause + " under the same claim", failure, failed, pause);
        return pause;
    }

    private void gaveUp(Execution x, int failed, Throwable failure, String why) {
        events.emit(IdempotencyEventType.GAVE_UP, x.plan.operation, x.keyText, x.token, "attempt " + failed + " of "
                + x.plan.policy.retry().maxAttempts() + " failed with " + failure.getClass().getName() + " and "
                + why + "; its callers get that failure", failure, failed, null);
    }

    private static IdempotencyBulkheadFullException full(OperationPlan plan, String why) {
        return new IdempotencyBulkheadFullException(plan.operation + ": scope \"" + scopeOf(plan) + "\" allows "
                + plan.policy.maxConcurrent() + " executions at once in this JVM (maxConcurrent), and " + why
                + "; the method did not run and its key was released");
    }

    private static Object inContext(ExecutionContext context, Invocation body) throws Throwable {
        IdempotencyContext previous = ContextSlot.bind(context);
        try {
            return body.proceed();
        } finally {
            ContextSlot.restore(previous);
        }
    }

    /** One execution's attempts. */
    private final class Execution {
        final OperationPlan plan;
        final String keyText;
        final long token;
        final Invocation body;

        Execution(OperationPlan plan, String keyText, long token, Invocation body) {
            this.plan = plan;
            this.keyText = keyText;
            this.token = token;
            this.body = body;
        }

        /** Runs attempt {@code n} on a thread of the timer's, completing {@code outcome} with the final outcome. */
        void later(int n, CompletableFuture<Object> outcome) {
            Object stage;
            try {
                stage = body.proceed();
                if (stage == null) {
                    throw new NullPointerException(plan.operation + " returned a null CompletionStage");
                }
            } catch (Throwable failure) {
                failed(n, failure, Thread.currentThread().isInterrupted(), outcome);
                return;
            }
            whenDone(n, (CompletionStage<?>) stage, outcome);
        }

        void whenDone(int n, CompletionStage<?> stage, CompletableFuture<Object> outcome) {
            stage.whenComplete((value, error) -> {
                if (error == null) {
                    outcome.complete(value);
                } else {
                    failed(n, ClaimedExecution.unwrap(error), false, outcome);
                }
            });
        }

        private void failed(int n, Throwable failure, boolean interrupted, CompletableFuture<Object> outcome) {
            Duration pause;
            try {
                pause = pauseAfter(this, n, failure, interrupted);
            } catch (Throwable unexpected) {
                failure.addSuppressed(unexpected);
                pause = null;
            }
            if (pause == null) {
                outcome.completeExceptionally(failure);
            } else {
                timer.schedule(pause, () -> later(n + 1, outcome));
            }
        }
    }

    /** Draws from the calling thread's own random, so no generator is shared between threads. */
    private static final class ThreadLocalRandomGenerator implements RandomGenerator {
        static final RandomGenerator INSTANCE = new ThreadLocalRandomGenerator();

        @Override
        public long nextLong() {
            return java.util.concurrent.ThreadLocalRandom.current().nextLong();
        }

        @Override
        public long nextLong(long bound) {
            return java.util.concurrent.ThreadLocalRandom.current().nextLong(bound);
        }
    }

    /** Sleeps on the caller's thread; schedules on the JDK's shared delayer, which hands tasks to its async pool. */
    private static final class SystemTimer implements RetryTimer {
        static final RetryTimer INSTANCE = new SystemTimer();

        @Override
        public boolean sleep(Duration pause) {
            return ClaimedExecution.pause(pause.toNanos());
        }

        @Override
        public void schedule(Duration pause, Runnable task) {
            CompletableFuture.delayedExecutor(pause.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)
                    .execute(task);
        }
    }
}
