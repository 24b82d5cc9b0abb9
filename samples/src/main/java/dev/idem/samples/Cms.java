package dev.idem.samples;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Where articles get published; it counts what readers would see. */
public class Cms {
    private final Map<String, AtomicInteger> publishedByTopic = new ConcurrentHashMap<>();

    public void publish(Article article) {
        publishedByTopic.computeIfAbsent(article.topic(), t -> new AtomicInteger()).incrementAndGet();
    }

    public Map<String, Integer> publishedByTopic() {
        Map<String, Integer> copy = new TreeMap<>();
        publishedByTopic.forEach((topic, n) -> copy.put(topic, n.get()));
        return copy;
    }
}
