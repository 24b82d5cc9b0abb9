package dev.idem.tests;

import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;

import java.io.Serializable;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A user's service, as a user writes it: annotated methods and nothing else. Compiled by ajc in the compile-time
 * module and by javac (then woven as it loads) in the load-time module.
 */
public class ArticleService {
    public record Article(String topic, int day, int edition, String key) implements Serializable {
    }

    public final AtomicInteger runs = new AtomicInteger();
    public volatile Runnable during = () -> {
    };
    static final AtomicInteger STATIC_RUNS = new AtomicInteger();

    @Idempotent(scope = "weaving:daily", window = "5m", ttl = "30m")
    public Article generate(String topic, int day) {
        during.run();
        String key = IdempotencyContext.current().map(IdempotencyContext::key).orElse("no context");
        return new Article(topic, day, runs.incrementAndGet(), key);
    }

    @Idempotent(scope = "weaving:order")
    public Article order(@IdempotencyKey String orderId, int quantity) {
        return new Article(orderId, quantity, runs.incrementAndGet(), "");
    }

    @Idempotent(scope = "weaving:down", store = "down")
    public Article againstADownStore(String topic) {
        return new Article(topic, 0, runs.incrementAndGet(), "");
    }

    @Idempotent(scope = "weaving:find")
    public Optional<Article> find(String topic) {
        runs.incrementAndGet();
        return Optional.of(new Article(topic, 0, runs.get(), ""));
    }

    @Idempotent(scope = "weaving:publish")
    public void publish(String topic) {
        runs.incrementAndGet();
    }

    @Idempotent(scope = "weaving:async")
    public CompletableFuture<Article> generateAsync(String topic) {
        return CompletableFuture.supplyAsync(() -> new Article(topic, 0, runs.incrementAndGet(), ""));
    }

    @Idempotent(scope = "weaving:static")
    public static int staticCount(String topic) {
        return STATIC_RUNS.incrementAndGet();
    }

    /** No parameters: every call is the same call. */
    @Idempotent(scope = "weaving:none")
    public int noParameters() {
        return runs.incrementAndGet();
    }

    /** Eight parameters, every primitive type among them: the most the aspect binds one by one. */
    @Idempotent(scope = "weaving:eight")
    public String eightParameters(byte b, short s, char c, int i, long l, float f, double d, boolean z) {
        return runs.incrementAndGet() + ":" + b + "," + s + "," + c + "," + i + "," + l + "," + f + "," + d + "," + z;
    }

    /** Nine parameters: past what the aspect binds one by one. */
    @Idempotent(scope = "weaving:nine")
    public static String nineParameters(byte b, short s, char c, int i, long l, float f, double d, boolean z,
                                        String text) {
        return STATIC_RUNS.incrementAndGet() + ":" + b + "," + s + "," + c + "," + i + "," + l + "," + f + "," + d
                + "," + z + "," + text;
    }

    /** Not annotated: a plain method runs every time, woven or not. */
    public Article plain(String topic) {
        return new Article(topic, 0, runs.incrementAndGet(), "");
    }
}
