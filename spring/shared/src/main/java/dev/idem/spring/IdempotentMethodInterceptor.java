package dev.idem.spring;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdempotentMethod;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

import java.lang.reflect.Method;
import java.util.function.Supplier;

/**
 * Hands a proxied call of an {@code @Idempotent} bean method to the engine's front-end contract
 * ({@link IdemEngine#advise}), which decides the call: a kept result, joining a running execution, the claim, the
 * body under a lease, storing, replaying, refusing.
 *
 * <p>The body is the rest of the proxy's chain, from a fresh copy of the invocation at each attempt: the engine
 * runs it again for each retry (possibly on another thread for a {@code CompletionStage}), and an invocation that
 * has proceeded once would skip the advice after this one (a {@code @Transactional} inside) at its second run.
 */
final class IdempotentMethodInterceptor implements MethodInterceptor {
    private final Supplier<IdemEngine> engine;

    IdempotentMethodInterceptor(Supplier<IdemEngine> engine) {
        this.engine = engine;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        IdempotentMethod handle = engine.get().advise(annotatedMethod(invocation));
        if (!(invocation instanceof ProxyMethodInvocation proxied)) {
            throw new IllegalStateException(invocation.getMethod() + " reached Idem's interceptor through a "
                    + invocation.getClass().getName() + ", which cannot be run again for a retry; Idem's advisor"
                    + " is meant for Spring AOP's proxies");
        }
        return handle.call(invocation.getArguments(), () -> proxied.invocableClone().proceed());
    }

    /** The target class's method, which carries {@code @Idempotent}, for a call made through an interface. */
    private static Method annotatedMethod(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Method called = invocation.getMethod();
        return target == null ? called : AopUtils.getMostSpecificMethod(called, AopUtils.getTargetClass(target));
    }
}
