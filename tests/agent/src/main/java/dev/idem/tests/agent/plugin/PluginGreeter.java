package dev.idem.tests.agent.plugin;

import dev.idem.Idempotent;
import dev.idem.tests.agent.app.Greeter;

/** Loaded by a child class loader from its own jar, the way containers load an application's classes. */
public class PluginGreeter implements Greeter {
    private int runs;

    @Override
    @Idempotent(scope = "agent:plugin-greet")
    public String greet(String name) {
        runs++;
        return "hello " + name;
    }

    @Override
    public int runs() {
        return runs;
    }
}
