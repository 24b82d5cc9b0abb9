package dev.idem.samples;

import java.time.LocalDate;

/** The job the workers run: generate the day's article for a topic, then publish it. No protection at all. */
public class ArticlePipeline {
    private final GenerationApi api;
    private final Cms cms;

    public ArticlePipeline(GenerationApi api, Cms cms) {
        this.api = api;
        this.cms = cms;
    }

    /** Runs job {@code jobId}: the day's article about {@code topic}. */
    public Article produce(String jobId, String topic, LocalDate day) {
        Article article = new Article(topic, day, api.generate("Write today's article about " + topic + " for " + day));
        cms.publish(article);
        return article;
    }
}
