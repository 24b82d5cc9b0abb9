package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method idempotent: calls with the same idempotency key run the method once; retries and duplicates get
 * the stored result, and concurrent identical calls in one JVM share one execution.
 *
 * <p>The key is {@code idem:{namespace}:{scope}:{hash}}, where the hash covers the key parameters (those marked
 * {@link IdempotencyKey}, or named in {@link #key()}, or else all parameters), {@link #version()}, and for
 * {@link WindowAlignment#FIXED FIXED} windows the start of the window. Durations are written {@code 250ms},
 * {@code 10s}, {@code 5m}, {@code 1h}, {@code 1d} (a whole number, a lower-case unit, no blank) or in ISO-8601
 * ({@code PT5M}), not negative: the one grammar ({@code dev.idem.store.DurationGrammar}) that also reads the durations
 * of the settings and of the stores' properties.
 *
 * <p>Every attribute is validated when the method is first called (or by the weaving check), and a bad value is
 * reported as an {@link IdempotencyConfigurationException} naming the method and the attribute: an annotated
 * method never runs unprotected because of a typo.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {

    /**
     * The operation's name in the key, such as {@code "gemini-lab:daily-content"}. Placeholders {@code {name}} or
     * {@code {name.path}} are filled from parameters, so {@code "{tenant}:orders"} partitions keys by tenant.
     * Empty means {@code SimpleClassName#method}.
     *
     * @return the scope, possibly with placeholders; empty for the default
     */
    String scope() default "";

    /**
     * Key parameters by name, optionally with a property path ({@code "order.id"}). Needs classes compiled with
     * {@code -parameters}. Empty means: the parameters marked {@link IdempotencyKey}, or else all parameters.
     *
     * @return the key parameters' names and paths; empty for the default
     */
    String[] key() default {};

    /** {@return the deduplication horizon, counted from the start of the first execution; empty means "use ttl"} */
    String window() default "";

    /** {@return whether the window slides from the first execution or is aligned to calendar buckets} */
    WindowAlignment windowAlignment() default WindowAlignment.SLIDING;

    /** {@return the time zone that aligns {@link WindowAlignment#FIXED FIXED} windows (a region id or offset)} */
    String zone() default "UTC";

    /**
     * {@return how long a completed record and its result are kept, from completion} Must be at least
     * {@link #window()}.
     */
    String ttl() default "1h";

    /**
     * {@return how long an execution owns its key before another caller may take over} Renewed while the method
     * runs.
     */
    String lease() default "30s";

    /** {@return what a caller does when another execution is running the same key} */
    OnInProgress onInProgress() default OnInProgress.WAIT;

    /** {@return how long a {@link OnInProgress#WAIT WAIT}ing caller waits for the other execution's result} */
    String waitTimeout() default "10s";

    /** {@return what happens when the store cannot be reached before the call} */
    OnStoreError onStoreError() default OnStoreError.FAIL_CLOSED;

    /**
     * {@return how long a failed execution is remembered, its exception type replayed to later calls; empty means
     * off}
     */
    String failureTtl() default "";

    /** {@return the exceptions that mean "retrying cannot help": recorded as failed for the full ttl and replayed} */
    Class<? extends Throwable>[] noRetryFor() default {};

    /**
     * {@return a version in every key of this method} Changing it changes them all at once, e.g. after a change in
     * what the method does.
     */
    String version() default "";

    /** {@return the name of the store for this method; empty means the configured default ({@code idem.store})} */
    String store() default "";

    /** {@return whether concurrent identical calls in this JVM share one execution} */
    boolean coalesce() default true;

    /**
     * {@return the codec that stores this method's results, by name ({@code json}, {@code java}); empty means the
     * configured default ({@code idem.codec}, else the highest-priority codec on the class path)}
     */
    String codec() default "";

    /**
     * {@return what a call does with a stored result that the current code cannot decode (its class changed
     * incompatibly in a new release)}
     */
    OnUndecodable onUndecodable() default OnUndecodable.FAIL;

    /**
     * {@return how the method's body is retried inside its one claim; the default, {@code maxAttempts = 1}, means
     * no retry} See {@link Retry}.
     */
    Retry retry() default @Retry(maxAttempts = 1);

    /**
     * {@return the most executions of this scope that run at once in this JVM, for distinct keys after coalescing
     * (a bulkhead); 0 means no limit} Further executions queue, each for at most {@link #waitTimeout()}, then fail
     * with {@link IdempotencyBulkheadFullException} without running. Methods sharing a scope share its limit.
     */
    int maxConcurrent() default 0;

    /**
     * {@return whether the claim, the method's own writes to the store's database and the completion are one
     * transaction} With {@link StoreTransaction#REQUIRED REQUIRED} or {@link StoreTransaction#MANDATORY MANDATORY}
     * they commit or roll back together; a concurrent caller of the same key waits on the key's row (up to
     * {@link #waitTimeout()}) instead of running. Needs a store that supports it (the jdbc store on PostgreSQL),
     * else the method is refused when planned; see "Transactional mode" in docs/jdbc-store.md.
     */
    StoreTransaction storeTransaction() default StoreTransaction.NONE;

    /**
     * {@return what a call does when it finds its key claimed by an execution whose {@link #lease()} passed (the
     * owner died): {@link OnAbandoned#TAKE_OVER TAKE_OVER} runs the method again; {@link OnAbandoned#RECONCILE
     * RECONCILE} first asks the application's {@code Reconciler} whether the work happened and stores its answer
     * instead of running again; {@link OnAbandoned#FAIL FAIL} refuses with {@link IdempotencyAbandonedException}
     * naming the key, until a person clears it} {@code RECONCILE} needs exactly one registered {@code Reconciler}
     * answering for the method, checked when the method is first planned.
     */
    OnAbandoned onAbandoned() default OnAbandoned.TAKE_OVER;
}
