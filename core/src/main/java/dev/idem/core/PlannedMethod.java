package dev.idem.core;

import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.plan.OperationPlan;

import java.lang.reflect.Method;

/** An {@link IdempotentMethod} planned in one engine: its plan, and the engine's call path. */
final class PlannedMethod implements IdempotentMethod {
    private final IdemEngine engine;
    private final Method method;
    private final EngineCore core;
    private final OperationPlan plan;

    PlannedMethod(IdemEngine engine, Method method, EngineCore core, OperationPlan plan) {
        this.engine = engine;
        this.method = method;
        this.core = core;
        this.plan = plan;
    }

    /** The engine this handle was planned in. */
    IdemEngine engine() {
        return engine;
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
