package dev.idem.samples;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.Retry;

import java.time.LocalDate;

/**
 * The same pipeline with one annotation. The job id is the key; topic and day are the payload, so a job id reused
 * for another topic is refused as a conflict instead of publishing the wrong article.
 *
 * <p>The upstream's 429s are retried inside the boundary: every attempt is the same operation under one claim, so
 * the four workers of a burst share one execution and its retries, and the workers' own retry loop is left with
 * what happens outside it (a response lost on the way back, which the stored result answers).
 */
public class IdempotentArticlePipeline extends ArticlePipeline {

    public IdempotentArticlePipeline(GenerationApi api, Cms cms) {
        super(api, cms);
    }

    @Override
    @Idempotent(scope = "gemini-lab:daily-content", window = "5m", ttl = "30m",
            retry = @Retry(maxAttempts = 5, base = "20ms", cap = "500ms"))
    public Article produce(@IdempotencyKey String jobId, String topic, LocalDate day) {
        return super.produce(jobId, topic, day);
    }
}
