package dev.idem.samples;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;

import java.time.LocalDate;

/**
 * The same pipeline with one annotation. The job id is the key; topic and day are the payload, so a job id reused
 * for another topic is refused as a conflict instead of publishing the wrong article.
 */
public class IdempotentArticlePipeline extends ArticlePipeline {

    public IdempotentArticlePipeline(GenerationApi api, Cms cms) {
        super(api, cms);
    }

    @Override
    @Idempotent(scope = "gemini-lab:daily-content", window = "5m", ttl = "30m")
    public Article produce(@IdempotencyKey String jobId, String topic, LocalDate day) {
        return super.produce(jobId, topic, day);
    }
}
