package dev.idem.core.internal;

import dev.idem.OnStoreError;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.Invocation;
import dev.idem.core.KeyCanonicalizer;
import dev.idem.store.IdempotencyStore;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Wires the engine's parts together; the public {@code IdemEngine} is a thin facade over it. */
public final class EngineCore implements AutoCloseable {
    private final StoreRegistry stores;
    private final OperationPlanner planner;
    private final CallRunner runner;

    @SuppressWarnings("checkstyle:ParameterNumber")
    public EngineCore(String namespace, String defaultStore, OnStoreError onStoreError, Clock clock,
                      Map<String, IdempotencyStore> registeredStores, Map<String, String> properties,
                      List<IdempotencyListener> listeners, List<KeyCanonicalizer<?>> canonicalizers,
                      int completionAttempts, Duration completionBackoff, LeaseHeartbeat.Scheduler scheduler,
                      ClassLoader loader) {
        this.stores = new StoreRegistry(registeredStores, properties, defaultStore, clock, loader);
        this.planner = new OperationPlanner(stores, namespace, Canonicalizers.of(canonicalizers));
        String owner = ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
        this.runner = new CallRunner(clock, new Events(listeners), new LeaseHeartbeat(scheduler), owner,
                onStoreError, completionAttempts, completionBackoff);
    }

    public OperationPlan plan(Method method) {
        return planner.plan(method);
    }

    public OperationPlan plan(IdempotencyPolicy policy, Type resultType) {
        return planner.plan(policy, resultType);
    }

    public Object run(OperationPlan plan, Object[] args, Invocation body) throws Throwable {
        return runner.run(plan, args, body);
    }

    public int inFlightCount() {
        return runner.inFlightCount();
    }

    @Override
    public void close() {
        runner.close();
        stores.close();
    }
}
