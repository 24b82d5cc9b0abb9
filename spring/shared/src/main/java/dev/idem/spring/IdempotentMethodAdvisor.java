package dev.idem.spring;

import dev.idem.Idempotent;
import dev.idem.core.IdemEngine;
import dev.idem.core.WeavingCheck;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.function.Supplier;

/**
 * Advises every Spring bean method annotated {@code @Idempotent} that AspectJ has not woven and the Idem agent has
 * not instrumented ({@link WeavingCheck#isWoven}, Idem's own check, not Spring's test for AspectJ fields), so a
 * method is handed to the engine once whichever ways Idem is attached. Ordered by {@code idem.spring.aspect-order}.
 */
final class IdempotentMethodAdvisor extends AbstractPointcutAdvisor {
    private final transient Advice advice;

    IdempotentMethodAdvisor(Supplier<IdemEngine> engine, int order) {
        this.advice = new IdempotentMethodInterceptor(engine);
        setOrder(order);
    }

    /**
     * Whether calls of {@code method} through a proxy of {@code targetClass} are Spring's to hand to the engine. A
     * final class is left out: no class-based proxy can extend it, and asking for one would stop the context with
     * CGLIB's error instead of the start-up check's, which names the method and what to do.
     */
    static boolean advises(Method method, Class<?> targetClass) {
        if (Modifier.isFinal(targetClass.getModifiers())) {
            return false;
        }
        Method implementation = AopUtils.getMostSpecificMethod(method, targetClass);
        return implementation.isAnnotationPresent(Idempotent.class) && !WeavingCheck.isWoven(implementation);
    }

    @Override
    public Pointcut getPointcut() {
        return new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return advises(method, targetClass);
            }
        };
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }
}
