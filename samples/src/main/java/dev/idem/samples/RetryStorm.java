package dev.idem.samples;

import dev.idem.IdempotencyConflictException;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The production day the demo replays: workers with retries, a queue that requeues, a flaky network and a cron
 * that wakes four workers at once, all calling the same pipeline. Run it against the plain pipeline and against
 * the {@code @Idempotent} one and compare what was billed and published.
 */
public final class RetryStorm {
    static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final int MAX_ATTEMPTS = 5;

    /**
     * What one run cost and produced. Every request that reached the upstream is an attempt; the billed ones, each
     * a generation that ran to the end, are the operations.
     */
    public record Outcome(int workerCalls, int billedCalls, int rateLimited, int conflicts,
                          Map<String, Integer> publishedByTopic) {
        public double cost() {
            return billedCalls * GenerationApi.PRICE_PER_CALL;
        }

        /** Requests that reached the upstream: the billed generations and the ones refused with a 429. */
        public int upstreamAttempts() {
            return billedCalls + rateLimited;
        }
    }

    private final GenerationApi api = new GenerationApi().rateLimit(prompt("rust"), Duration.ofMillis(30));
    private final Cms cms = new Cms();
    private final ArticlePipeline pipeline;
    private final Set<String> responsesToLose = ConcurrentHashMap.newKeySet();
    private final AtomicInteger workerCalls = new AtomicInteger();
    private final AtomicInteger conflicts = new AtomicInteger();

    private RetryStorm(boolean idempotent) {
        this.pipeline = idempotent ? new IdempotentArticlePipeline(api, cms) : new ArticlePipeline(api, cms);
    }

    /** Replays the day against the plain pipeline ({@code idempotent = false}) or the annotated one. */
    public static Outcome replay(boolean idempotent) throws Exception {
        RetryStorm day = new RetryStorm(idempotent);
        // 1. A retry storm after a 429: four workers hit the rate limit together and retry together.
        day.together(4, () -> day.runJob("daily-rust", "rust"));
        // 2. A response lost after the work was done: the worker never hears back and retries.
        day.responsesToLose.add("daily-kotlin");
        day.runJob("daily-kotlin", "kotlin");
        // 3. A queue that requeues a job that had already finished (its ack was lost).
        day.runJob("daily-java", "java");
        day.runJob("daily-java", "java");
        // 4. Four workers waking at the same minute with the same prompt.
        day.together(4, () -> day.runJob("daily-go", "go"));
        // 5. A buggy producer reuses a job id for another topic.
        day.runJob("daily-go", "golang");
        return new Outcome(day.workerCalls.get(), day.api.billedCalls(), day.api.rateLimitedResponses(),
                day.conflicts.get(), day.cms.publishedByTopic());
    }

    static String prompt(String topic) {
        return "Write today's article about " + topic + " for " + DAY;
    }

    /**
     * A worker: runs the job, retrying on a 429 (after Retry-After) and on a lost response. Against the idempotent
     * pipeline the 429s are retried inside it, so only the lost response comes back here.
     */
    private Article runJob(String jobId, String topic) {
        for (int attempt = 1; ; attempt++) {
            try {
                workerCalls.incrementAndGet();
                return deliver(jobId, () -> pipeline.produce(jobId, topic, DAY));
            } catch (RateLimitedException e) {
                if (attempt == MAX_ATTEMPTS) {
                    throw e;
                }
                GenerationApi.sleep(e.getRetryAfter().toMillis()); // with Idem, a 429 never gets this far
            } catch (ResponseLost e) {
                if (attempt == MAX_ATTEMPTS) {
                    throw e;
                }
                GenerationApi.sleep(10);
            } catch (IdempotencyConflictException e) {
                conflicts.incrementAndGet();
                return null; // a bug to fix upstream; retrying would not help
            }
        }
    }

    /** The network between worker and pipeline: it loses the response of each listed job once. */
    private <T> T deliver(String jobId, Supplier<T> call) {
        T response = call.get();
        if (responsesToLose.remove(jobId)) {
            throw new ResponseLost();
        }
        return response;
    }

    private void together(int workers, Supplier<Article> job) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            CountDownLatch alarm = new CountDownLatch(1);
            List<Future<Article>> done = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                done.add(pool.submit(() -> {
                    alarm.await();
                    return job.get();
                }));
            }
            alarm.countDown();
            for (Future<Article> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static final class ResponseLost extends RuntimeException {
        ResponseLost() {
            super("connection reset: the response was lost after the work was done");
        }
    }
}
