package dev.idem.benchmarks;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * A result of ten fields, as a service returns one (an order, a payment): what {@code CallBenchmarks.json*} stores
 * through the json codec and, for comparison, the java codec.
 */
record Report10(String id, String topic, int day, long views, double score, boolean published, BigDecimal price,
                Instant createdAt, List<String> tags, String summary) implements Serializable {

    static Report10 of(GenerateRequest request) {
        return new Report10("rep-" + request.day(), request.topic(), request.day(), 12_345L, 4.5, true,
                new BigDecimal("19.99"), Instant.ofEpochSecond(1_764_460_800L), TAGS, Generator.ARTICLE);
    }

    private static final List<String> TAGS = List.of("rust", "jvm", "idempotency");
}
