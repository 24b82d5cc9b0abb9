package dev.idem.samples;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A simulated paid text-generation API: every successful call is billed and takes a while, like an LLM call. A
 * prompt can be rate-limited for a short window opened by its first call: every call in that window is answered
 * with a 429 before any work is done, as a limiter answers the first wave of a burst.
 */
public class GenerationApi {
    public static final double PRICE_PER_CALL = 0.04;
    private static final long LATENCY_MILLIS = 150;

    private final Map<String, Long> burstWindowNanos = new ConcurrentHashMap<>();
    private final Map<String, Long> windowOpenedAt = new ConcurrentHashMap<>();
    private final AtomicInteger billedCalls = new AtomicInteger();
    private final AtomicInteger rateLimited = new AtomicInteger();

    /** Answers every call of {@code prompt} with a 429 for {@code window} after its first call. */
    public GenerationApi rateLimit(String prompt, Duration window) {
        burstWindowNanos.put(prompt, window.toNanos());
        return this;
    }

    public String generate(String prompt) {
        Long window = burstWindowNanos.get(prompt);
        long now = System.nanoTime();
        if (window != null && now - windowOpenedAt.computeIfAbsent(prompt, p -> now) < window) {
            rateLimited.incrementAndGet();
            throw new RateLimitedException(40);
        }
        billedCalls.incrementAndGet();
        sleep(LATENCY_MILLIS);
        return "An article for: " + prompt;
    }

    public int billedCalls() {
        return billedCalls.get();
    }

    public int rateLimitedResponses() {
        return rateLimited.get();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
