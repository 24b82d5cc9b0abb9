package dev.idem.benchmarks;

/**
 * The argument of every benchmarked call: a plain class with two fields. The peer library reflects over its
 * argument's fields, which fails for a bare String on Java 17, so every variant takes this shape.
 */
public class GenerateRequest {
    private final String topic;
    private final int day;

    public GenerateRequest(String topic, int day) {
        this.topic = topic;
        this.day = day;
    }

    public String topic() {
        return topic;
    }

    public int day() {
        return day;
    }
}
