package dev.idem.aspect;

import dev.idem.core.Idem;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Hands every execution of an {@code @Idempotent} method to the engine and does nothing else, so compile-time
 * weaving, load-time weaving and the agent share one behaviour.
 */
@Aspect
public class IdempotentAspect {

    @Around("execution(@dev.idem.Idempotent * *(..))")
    public Object aroundIdempotent(ProceedingJoinPoint call) throws Throwable {
        // MethodSignature caches its Method, so this is a field read after the first call.
        return Idem.engine().invoke(((MethodSignature) call.getSignature()).getMethod(), call.getArgs(), call::proceed);
    }
}
