package dev.idem.core;

import dev.idem.IdempotencyException;
import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.plan.OperationPlan;
import jakarta.annotation.Nonnull;

import java.util.concurrent.Callable;

/**
 * A programmatic idempotent operation, made by {@link IdemEngine#operation}: the same engine path as an
 * {@code @Idempotent} method, keyed by the values it is called with.
 *
 * <pre>{@code
 * IdempotentOperation<Article> daily = Idem.engine().operation(
 *         IdempotencyPolicy.custom().scope("lab:daily").window("5m").ttl("30m").build(), Article.class);
 * Article article = daily.call(() -> generate(topic, day), topic, day);
 * }</pre>
 *
 * @param <T> the result type
 */
public final class IdempotentOperation<T> {
    private final EngineCore core;
    private final OperationPlan plan;

    IdempotentOperation(EngineCore core, OperationPlan plan) {
        this.core = core;
        this.plan = plan;
    }

    /**
     * Runs {@code body} once per distinct {@code keyValues} (within the window and ttl) and returns its result,
     * or the stored result of an earlier identical call.
     *
     * @param body      the work, run at most once per key
     * @param keyValues the values that identify the call, encoded into its key
     * @return what {@code body} returned, now or for an earlier identical call
     * @throws Exception what {@code body} throws, unchanged, or an {@link IdempotencyException}
     */
    @SuppressWarnings("unchecked")
    public T call(@Nonnull Callable<T> body, Object... keyValues) throws Exception {
        try {
            return (T) core.run(plan, new Object[] {keyValues}, body::call);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("unexpected throwable from " + plan.operation(), t);
        }
    }

    /** {@return the policy the operation was created with} */
    public IdempotencyPolicy policy() {
        return plan.policy();
    }
}
