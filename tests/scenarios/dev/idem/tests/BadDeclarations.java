package dev.idem.tests;

import dev.idem.Idempotent;

import java.util.concurrent.atomic.AtomicInteger;

/** Declarations the engine refuses; only DeclarationChecksTest touches them, so they load when it says. */
final class BadDeclarations {
    static final AtomicInteger RUNS = new AtomicInteger();

    private BadDeclarations() {
    }

    /** A duration the engine cannot read. */
    static final class BadTtl {
        @Idempotent(scope = "weaving:bad-ttl", ttl = "5 min")
        public String generate(String topic) {
            RUNS.incrementAndGet();
            return topic;
        }
    }

    /** {@code @Idempotent} on an interface method: refused in every mode, since nothing applies it to implementations. */
    interface Orders {
        @Idempotent(scope = "weaving:orders")
        String create(String requestId);
    }

    /** Implements the annotated interface method without the annotation. */
    static final class DatabaseOrders implements Orders {
        @Override
        public String create(String requestId) {
            RUNS.incrementAndGet();
            return requestId;
        }
    }
}
