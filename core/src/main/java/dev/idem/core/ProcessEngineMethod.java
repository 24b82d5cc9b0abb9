package dev.idem.core;

import java.lang.reflect.Method;

/**
 * An {@link IdempotentMethod} that follows the process's engine: each call runs on {@link Idem#engine()} as it is
 * when the call starts, through that engine's handle of the method, which is remembered until the engine is
 * replaced (a replaced engine stays reachable from here until the method's next call).
 */
final class ProcessEngineMethod implements IdempotentMethod {
    /** An engine and its handle of the method, read and written as one. */
    private record InEngine(IdemEngine engine, IdempotentMethod handle) {
    }

    private final Method method;
    /**
     * The handle in the engine last seen. Racing threads may each ask the engine, which answers the same handle, so
     * the last write wins harmlessly; a handle of a replaced engine is never used for a call that starts later.
     */
    private volatile InEngine current;

    ProcessEngineMethod(Method method) {
        this.method = method;
    }

    @Override
    public Method method() {
        return method;
    }

    @Override
    public Object call(Object[] args, Invocation body) throws Throwable {
        IdemEngine engine = Idem.engine();
        InEngine seen = current;
        if (seen == null || seen.engine != engine) {
            seen = new InEngine(engine, engine.advise(method)); // a configuration error is thrown here, every call
            current = seen;
        }
        return seen.handle.call(args, body);
    }

    @Override
    public String toString() {
        return "IdempotentMethod[" + method + ", on the process's engine]";
    }
}
