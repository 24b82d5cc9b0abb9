package dev.idem.aspect;

import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.Invocation;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.annotation.SuppressAjWarnings;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Hands every execution of an {@code @Idempotent} method to the engine and does nothing else, so compile-time
 * weaving, load-time weaving and the agent share one behaviour.
 *
 * <h2>Why code style, one advice per arity</h2>
 * Advice that takes a {@code ProceedingJoinPoint} (or reads {@code thisJoinPoint}) makes AspectJ build a
 * {@code JoinPointImpl} per call, and in the AspectJ runtimes Idem supports (1.9.25, 1.9.27) each one creates a
 * {@code ThreadLocal} of its own (an atomic increment on a JVM-wide counter and two more objects), then
 * {@code getArgs()} copies the arguments again: 104 bytes and a measurable part of a replay answered from this
 * JVM's results. Here the arguments are bound with {@code args(..)} instead, one advice per parameter count, and
 * only the static part of the join point (a constant of the woven class, whose signature caches its
 * {@code Method}) is used. {@code Object} in {@code args} matches every parameter statically (no run-time test, so
 * a null argument is advised like any other) and binds primitives boxed; {@code proceed} with the same values runs
 * the original body as the engine's {@link Invocation} (once, again for each retry, possibly on another thread).
 * Methods with more than eight parameters take the general route through {@code thisJoinPoint}.
 *
 * <h2>Two advices per arity</h2>
 * A replay of a result this JVM keeps is the hot path, and the advice that hands the engine an {@link Invocation}
 * costs it a closure: ajc cannot inline advice whose {@code proceed} is captured by a lambda, so it builds an
 * {@code AroundClosure} (and its state array) per call, and the lambda is one more object. So each arity has two
 * advices. The first, declared first and so outermost, asks the engine for a kept result
 * ({@link IdemEngine#replayKept}, which never runs the method and never throws) and returns it, or else
 * proceeds; it has no lambda and no join point object, so ajc inlines it into the method. The second is the
 * engine's full path, as above, which a call reaches only when it was not kept; it takes the key the first advice
 * derived (the engine hands it over on the thread) rather than deriving it again.
 *
 * <p>Each pair matches a disjoint set of methods (exactly its parameter count), and the first of a pair only
 * answers or proceeds into the second, so a method's body runs as the engine decides, once per execution.
 *
 * <p>So in any one woven module most advices match nothing: each is marked
 * {@code @SuppressAjWarnings("adviceDidNotMatch")}, or every build that weaves this aspect would warn about the
 * arities its own methods do not have.
 */
public aspect IdempotentAspect {

    // Kept results: declared first, so each of these runs outside the advice below for the same method (AspectJ
    // orders around advice of one aspect by declaration, the earlier outermost). No lambda and no join point, so ajc
    // inlines it into the method: a replay builds no closure and no Invocation.

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(): execution(@dev.idem.Idempotent * *()) {
        Object kept = kept(thisJoinPointStaticPart, NO_ARGS);
        return kept != IdemEngine.NOT_KEPT ? kept : proceed();
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a): execution(@dev.idem.Idempotent * *(*)) && args(a) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a);
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b): execution(@dev.idem.Idempotent * *(*, *)) && args(a, b) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a, b});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a, b);
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c): execution(@dev.idem.Idempotent * *(*, *, *)) && args(a, b, c) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a, b, c});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a, b, c);
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d):
            execution(@dev.idem.Idempotent * *(*, *, *, *)) && args(a, b, c, d) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a, b, c, d});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a, b, c, d);
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *)) && args(a, b, c, d, e) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a, b, c, d, e});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a, b, c, d, e);
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e, Object f):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *, *)) && args(a, b, c, d, e, f) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a, b, c, d, e, f});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a, b, c, d, e, f);
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e, Object f, Object g):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *, *, *)) && args(a, b, c, d, e, f, g) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a, b, c, d, e, f, g});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a, b, c, d, e, f, g);
    }

    @SuppressAjWarnings("adviceDidNotMatch")
    Object around(Object a, Object b, Object c, Object d, Object e, Object f, Object g, Object h):
            execution(@dev.idem.Idempotent * *(*, *, *, *, *, *, *, *)) && args(a, b, c, d, e, f, g, h) {
        Object kept = kept(thisJoinPointStaticPart, new Object[] {a, b, c, d, e, f, g, h});
        return kept != IdemEngine.NOT_KEPT ? kept : proceed(a, b, c, d, e, f, g, h);
    }

    // Everything else: the engine decides the call, with the body as an Invocation it may run.

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

    /** The result the engine keeps for this call, or {@link IdemEngine#NOT_KEPT}; never throws. */
    private static Object kept(JoinPoint.StaticPart at, Object[] args) {
        return Idem.engine().replayKept(((MethodSignature) at.getSignature()).getMethod(), args);
    }

    private static Object call(JoinPoint.StaticPart at, Object[] args, Invocation body) {
        try {
            // MethodSignature caches its Method, so this is a field read after the first call.
            return Idem.engine().invoke(((MethodSignature) at.getSignature()).getMethod(), args, body);
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
