package dev.idem.tests.agent.app;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;

import java.util.concurrent.atomic.AtomicInteger;

/** Declarations the engine refuses, loaded only by the scenarios that exercise them. */
public final class BadDeclarations {
    static final AtomicInteger RUNS = new AtomicInteger();

    private BadDeclarations() {
    }

    /**
     * A scenario of AgentApp: loads a class, prints a marker on standard error, then calls it. Each scenario is a
     * method of the class it exercises, so that verifying one loads nothing of the other.
     */
    static void run(String scenario) {
        if (scenario.equals("bad-ttl")) {
            BadTtl.scenario();
        } else {
            DatabaseOrders.scenario();
        }
        System.out.println("runs=" + RUNS.get());
    }

    /** A duration the engine cannot read. */
    public static final class BadTtl {
        /** Calling this initialises the class: all that happens before the marker. */
        static void scenario() {
            BadTtl bad = new BadTtl();
            System.err.println("-- before the first call --");
            try {
                bad.generate("rust");
                System.out.println("refused=no");
            } catch (IdempotencyConfigurationException e) {
                System.out.println("refused=yes");
            }
        }

        @Idempotent(scope = "agent:bad-ttl", ttl = "5 min")
        public String generate(String topic) {
            RUNS.incrementAndGet();
            return topic;
        }
    }

    /** {@code @Idempotent} on an interface method: refused, since nothing applies it to implementations. */
    public interface Orders {
        @Idempotent(scope = "agent:orders")
        String create(String requestId);
    }

    /** Implements the annotated interface method without the annotation: runs unprotected, and is reported. */
    public static final class DatabaseOrders implements Orders {
        static void scenario() {
            Orders orders = new DatabaseOrders();
            System.err.println("-- before the first call --");
            orders.create("order-1");
            orders.create("order-1");
        }

        @Override
        public String create(String requestId) {
            RUNS.incrementAndGet();
            return requestId;
        }
    }
}
