package dev.idem.tests.agent.app;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;

import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;

/** An application's service, compiled by plain javac: only the agent can make it idempotent. */
public class ArticleService {
    public record Article(String topic, int edition) implements Serializable {
    }

    public final AtomicInteger runs = new AtomicInteger();
    public volatile Runnable during = () -> {
    };

    @Idempotent(scope = "agent:generate")
    public Article generate(String topic) {
        during.run();
        return new Article(topic, runs.incrementAndGet());
    }

    @Idempotent(scope = "agent:order")
    public Article order(@IdempotencyKey String orderId, int quantity) {
        return new Article(orderId, runs.incrementAndGet());
    }

    @Idempotent(scope = "agent:down", store = "down")
    public Article againstADownStore(String topic) {
        return new Article(topic, runs.incrementAndGet());
    }

    @Idempotent(scope = "agent:publish")
    public void publish(String topic) {
        runs.incrementAndGet();
    }

    public static final AtomicInteger STATIC_RUNS = new AtomicInteger();

    @Idempotent(scope = "agent:count")
    public static int count(String topic) {
        return STATIC_RUNS.incrementAndGet();
    }
}
