package dev.idem.core;

import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.plan.OperationPlan;

import java.lang.reflect.Method;

/**
 * An {@link IdempotentMethod} planned in one engine: its plan, and the engine's call path.
 *
 * <p>It holds the engine's parts, never the {@link IdemEngine} itself: the engine keeps its handles in a
 * {@code ClassValue} whose entries live in the application's classes, and an entry whose value held its own
 * {@code ClassValue}'s engine would keep every closed engine reachable for as long as those classes live.
 */
final class PlannedMethod implements IdempotentMethod {
    private final Method method;
    private final EngineCore core;
    private final OperationPlan plan;

    PlannedMethod(Method method, EngineCore core, OperationPlan plan) {
        this.method = method;
        this.core = core;
        this.plan = plan;
    }

    @Override
    public Method method() {
        return method;
    }

    @Override
    public Object call(Object[] args, Invocation body) throws Throwable {
        return core.run(plan, args, body);
    }

    @Override
    public String toString() {
        return "IdempotentMethod[" + plan.operation() + "]";
    }
}
