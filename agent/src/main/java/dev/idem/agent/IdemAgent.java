package dev.idem.agent;

import dev.idem.agent.internal.AgentArgumentException;
import dev.idem.agent.internal.Installer;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points: {@code java -javaagent:idem-agent.jar[=key=value,...]} at launch ({@link #premain}),
 * or loaded into a running JVM ({@link #agentmain}), which also retransforms classes already loaded.
 *
 * <p>Arguments use the configuration's keys without the {@code idem.} prefix ({@code namespace}, {@code store},
 * {@code onStoreError}, a store's {@code <store>.<key>}), plus {@code include} and {@code exclude} (package
 * prefixes separated by {@code :}) and {@code verbose=true}. A bad argument stops a launch with one line naming it:
 * an application never starts unprotected by mistake.
 */
public final class IdemAgent {
    private IdemAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        try {
            Installer.install(arguments, instrumentation);
        } catch (AgentArgumentException e) {
            System.err.println("idem-agent: " + e.getMessage());
            System.err.flush();
            System.exit(2);
        }
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        try {
            Installer.install(arguments, instrumentation);
        } catch (AgentArgumentException e) {
            // A running application is not stopped; the attaching side sees the failure.
            System.err.println("idem-agent: " + e.getMessage());
            throw e;
        }
    }
}
