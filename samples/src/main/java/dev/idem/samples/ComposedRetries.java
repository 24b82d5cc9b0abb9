package dev.idem.samples;

import dev.idem.IdempotencyInProgressException;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalDate;

/**
 * The example of docs/retries.md ("Retries inside the boundary"): a caller's own Resilience4j {@code Retry} around an
 * {@code @Idempotent} method whose {@code @Retry} owns the upstream's 429s.
 *
 * <p>Outside the boundary, retry what happens on the way to the method and back: a response lost after the work
 * was done (each retry is a duplicate that gets the stored result), or another process still running the key past
 * {@code waitTimeout}. Never the upstream's own failures: they were retried inside already, and retrying them here
 * would start a new round of attempts after Idem gave up, multiplying the requests the upstream sees.
 */
public class ComposedRetries {
    private final Retry delivery = Retry.of("deliver-article", RetryConfig.custom()
            .maxAttempts(3)
            .waitDuration(Duration.ofMillis(10))
            .retryExceptions(UncheckedIOException.class, IdempotencyInProgressException.class)
            .ignoreExceptions(RateLimitedException.class) // already retried inside the boundary
            .build());
    private final Network network;
    private final IdempotentArticlePipeline pipeline;

    /** The way to the pipeline and back (in a real system, an HTTP call or a queue). */
    public interface Network {
        /** Carries {@code article} back to the caller; may lose it with an {@link UncheckedIOException}. */
        Article back(Article article);
    }

    public ComposedRetries(IdempotentArticlePipeline pipeline, Network network) {
        this.pipeline = pipeline;
        this.network = network;
    }

    /** Produces the day's article for {@code jobId}; however often this retries, it is one operation. */
    public Article produce(String jobId, String topic, LocalDate day) {
        return delivery.executeSupplier(() -> network.back(pipeline.produce(jobId, topic, day)));
    }
}
