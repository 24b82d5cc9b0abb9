package dev.idem.aspect;

import dev.idem.core.Idem;
import dev.idem.core.Invocation;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.annotation.SuppressAjWarnings;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Hands every execution of an {@code @Idempotent} method to the engine's front-end contract
 * ({@link Idem#advise}, one handle per method) and does nothing else, so compile-time weaving, load-time weaving and
 * the agent share one behaviour.
 *
 * <p>One advice per parameter count, binding the arguments with {@code args(..)}: advice that reads
 * {@code thisJoinPoint} makes AspectJ build a join point object per call (and, in the runtimes Idem supports, a
 * {@code ThreadLocal} of its own), then {@code getArgs()} copies the arguments again. {@code Object} in {@code args}
 * matches every parameter statically (no run-time test, so a null argument is advised like any other) and binds
 * primitives boxed; {@code proceed} with the same values is the body the engine runs (once, again for each retry,
 * possibly on another thread). Only the static part of the join point is read: a constant of the woven class, whose
 * signature caches its {@code Method}. Methods with more than eight parameters go through {@code thisJoinPoint}.
 * Each advice matches exactly its own parameter count, so a method is advised once; most advices match nothing in a
 * given module, hence {@code @SuppressAjWarnings("adviceDidNotMatch")}.
 */
public aspect IdempotentAspect {

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(): execution(@dev.idem.Idempotent * *()) {
        return call(thisJoinPointStaticPart, NO_ARGS, () -> proceed());
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a): execution(@dev.idem.Idempotent * *(*)) && args(a) {
        return call(thisJoinPointStaticPart, new Object[] {a}, () -> proceed(a));
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b): execution(@dev.idem.Idempotent * *(*, *)) && args(a, b) {
        return call(thisJoinPointStaticPart, new Object[] {a, b}, () -> proceed(a, b));
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c): execution(@dev.idem.Idempotent * *(*, *, *)) && args(a, b, c) {
        return call(thisJoinPointStaticPart, new Object[] {a, b, c}, () -> proceed(a, b, c));
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d):
            execution(@dev.idem.Idempotent * *(*, *, *, *)) && args(a, b, c, d) {
        return call(thisJoinPointStaticPart, new Object[] {a, b, c, d}, () -> proceed(a, b, c, d));
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *)) && args(a, b, c, d, e) {
        return call(thisJoinPointStaticPart, new Object[] {a, b, c, d, e}, () -> proceed(a, b, c, d, e));
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e, Object f):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *, *)) && args(a, b, c, d, e, f) {
        return call(thisJoinPointStaticPart, new Object[] {a, b, c, d, e, f}, () -> proceed(a, b, c, d, e, f));
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e, Object f, Object g):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *, *, *)) && args(a, b, c, d, e, f, g) {
        return call(thisJoinPointStaticPart, new Object[] {a, b, c, d, e, f, g}, () -> proceed(a, b, c, d, e, f, g));
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e, Object f, Object g, Object h):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *, *, *, *)) && args(a, b, c, d, e, f, g, h) {
        return call(thisJoinPointStaticPart, new Object[] {a, b, c, d, e, f, g, h},
                () -> proceed(a, b, c, d, e, f, g, h));
    }

    /** Nine parameters or more: the arguments as the join point has them (a copy), the body as it was called. */
    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(): execution(@dev.idem.Idempotent * *(*, *, *, *, *, *, *, *, *, ..)) {
        return call(thisJoinPointStaticPart, thisJoinPoint.getArgs(), () -> proceed());
    }

    private static final Object[] NO_ARGS = {};

    private static Object call(JoinPoint.StaticPart at, Object[] args, Invocation body) {
        try {
            // The handle follows Idem.install; MethodSignature caches its Method, so this is a field read.
            return Idem.advise(((MethodSignature) at.getSignature()).getMethod()).call(args, body);
        } catch (Throwable t) {
            // What the method or the engine threw goes to the caller unchanged, checked or not, as from the method
            // itself: advice cannot declare every join point's exceptions, and the bytecode does not need it to.
            throw IdempotentAspect.<RuntimeException>unchanged(t);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T unchanged(Throwable t) throws T {
        throw (T) t;
    }
}
