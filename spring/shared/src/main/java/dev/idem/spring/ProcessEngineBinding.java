package dev.idem.spring;

import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import org.springframework.beans.factory.DisposableBean;

/**
 * Lends the context's engine to the process ({@link Idem#install}) while the context runs, once a bean is found
 * whose {@code @Idempotent} methods are woven at compile time or instrumented by the agent. Such methods run on the
 * process's engine, not through the context's advisor, so without this they would ignore the application's
 * {@code idem.*} properties and its beans (store, listeners), and keep their records apart from the proxied beans'.
 *
 * <p>When the context closes, the engine it replaced is put back ({@link Idem#uninstall}), unless another
 * component installed one meanwhile. This bean depends on the engine, so it is destroyed, and the process's engine
 * given back, before the context's engine is closed.
 */
final class ProcessEngineBinding implements DisposableBean {
    private final IdemEngine engine;
    private boolean installed;
    private IdemEngine previous;

    ProcessEngineBinding(IdemEngine engine) {
        this.engine = engine;
    }

    /** Makes the context's engine the process's engine, once. */
    synchronized void install() {
        if (!installed) {
            previous = Idem.install(engine);
            installed = true;
        }
    }

    /** {@return whether the context's engine was lent to the process} */
    synchronized boolean installed() {
        return installed;
    }

    @Override
    public synchronized void destroy() {
        if (installed) {
            Idem.uninstall(engine, previous);
            installed = false;
            previous = null;
        }
    }
}
