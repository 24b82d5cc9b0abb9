package dev.idem.core.internal;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.Invocation;
import dev.idem.core.internal.call.AbandonedClaims;
import dev.idem.core.internal.call.AttemptRunner;
import dev.idem.core.internal.call.CallRunner;
import dev.idem.core.internal.call.Events;
import dev.idem.core.internal.call.LeaseHeartbeat;
import dev.idem.core.internal.codec.Codecs;
import dev.idem.core.internal.key.Canonicalizers;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.core.internal.plan.OperationPlanner;
import dev.idem.core.internal.plan.StoreRegistry;
import dev.idem.core.internal.retry.RetryRules;
import dev.idem.core.internal.retry.RetryTimer;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/** Wires the engine's parts together; the public {@code IdemEngine} is a thin facade over it. */
public final class EngineCore implements AutoCloseable {
    private final StoreRegistry stores;
    private final OperationPlanner planner;
    private final CallRunner runner;
    private final AttemptRunner attempts;
    private final AbandonedClaims abandoned;

    /**
     * @param scheduler the lease heartbeat's scheduler, or null for a daemon thread of the engine's own
     * @param loader    where store providers are looked up
     */
    public EngineCore(IdemSettings settings, LeaseHeartbeat.Scheduler scheduler, ClassLoader loader) {
        this(settings, scheduler, loader, null, null);
    }

    /**
     * @param retryRandom where back-off pauses are drawn from, or null for a thread-local random (tests fix it)
     * @param retryTimer  how pauses between attempts are waited, or null for real sleeps and a shared delayer
     */
    public EngineCore(IdemSettings settings, LeaseHeartbeat.Scheduler scheduler, ClassLoader loader,
                      RandomGenerator retryRandom, RetryTimer retryTimer) {
        Events events = new Events(settings.listeners(), settings.clock());
        this.stores = new StoreRegistry(settings.stores(), settings.properties(), settings.defaultStore(),
                settings.clock(), loader, events.evictionListener());
        String owner = ownerName();
        LeaseHeartbeat heartbeat = new LeaseHeartbeat(settings.clock(), scheduler, (operation, key, token) ->
                events.emit(IdempotencyEventType.LEASE_LOST, operation, key, token,
                        "the lease was renewed too late and another caller took the key over"));
        this.abandoned = new AbandonedClaims(settings.reconcilers(), events, settings.clock());
        this.attempts = new AttemptRunner(events, settings.clock(),
                new RetryRules(settings.retryClassifiers(), settings.retryAfters()), retryRandom, retryTimer);
        this.runner = new CallRunner(settings.clock(), events, heartbeat, owner, settings.onStoreError(),
                settings.completionAttempts(), settings.completionBackoff(), attempts, settings.waitRecheck(),
                abandoned);
        Codecs codecs = new Codecs(settings.defaultCodec(), loader, settings.codecs());
        this.planner = new OperationPlanner(stores, codecs, settings.namespace(),
                Canonicalizers.of(settings.canonicalizers()), runner::forgetPlan);
        System.getLogger("dev.idem").log(System.Logger.Level.DEBUG, "Idem engine: namespace " + settings.namespace()
                + ", default store " + settings.defaultStore() + ", default result codec " + codecs.defaultName()
                + " (codecs on the class path: " + codecs.names() + ")");
    }

    /**
     * Names this process's executions in records, so an operator can tell who holds a key: the pid, and 8 random
     * hex digits that tell apart processes of one pid (containers). A label, not a secret, so it is not drawn from
     * a {@code SecureRandom}, whose provider lookup and seeding a first call would otherwise wait for.
     */
    private static String ownerName() {
        long random = ThreadLocalRandom.current().nextInt() & 0xFFFF_FFFFL;
        return ProcessHandle.current().pid() + "/" + Long.toHexString(0x1_0000_0000L | random).substring(1);
    }

    public OperationPlan plan(Method method) {
        OperationPlan plan = planner.plan(method);
        abandoned.check(plan);
        return plan;
    }

    public void check(Method method) {
        planner.check(method);
    }

    public OperationPlan plan(IdempotencyPolicy policy, Type resultType) {
        OperationPlan plan = planner.plan(policy, resultType);
        abandoned.check(plan);
        return plan;
    }

    public Object run(OperationPlan plan, Object[] args, Invocation body) throws Throwable {
        return runner.run(plan, args, body);
    }

    public void requireDefaultStore() {
        try {
            stores.resolve("");
        } catch (IllegalArgumentException e) {
            throw new IdempotencyConfigurationException(IdemSettings.STORE + " = \"" + stores.defaultName() + "\": "
                    + e.getMessage());
        }
    }

    public int inFlightCount() {
        return runner.inFlightCount();
    }

    /** How many executions of {@code scope} wait for a permit of its {@code maxConcurrent} limit right now. */
    public int queuedFor(String scope) {
        return attempts.queuedFor(scope);
    }

    @Override
    public void close() {
        runner.close();
        stores.close();
    }
}
