package dev.idem.core.reload;

import dev.idem.Idempotent;

import java.io.Serializable;

/** Loaded afresh by a class loader of its own in the class-reloading tests, as a dev-tools restart would. */
public class Reloadable {
    private int runs;

    /** A result of the reloaded code's own type. */
    public record Out(String topic, int edition) implements Serializable {
    }

    @Idempotent(scope = "reload:make")
    public Out make(String topic) {
        return new Out(topic, ++runs);
    }

    @Idempotent(scope = "reload:name")
    public String name(String topic) {
        return topic + " " + (++runs);
    }
}
