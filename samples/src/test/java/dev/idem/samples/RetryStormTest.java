package dev.idem.samples;

import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.WeavingCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's claims, checked: the same day costs and publishes exactly once per job with Idem, and not without. */
class RetryStormTest {
    private IdemEngine engine;
    private IdemEngine previous;

    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void install() {
        engine = IdemEngine.create(IdemSettings.custom().namespace("demo-test").listener(events::add).build());
        previous = Idem.install(engine);
    }

    @AfterEach
    void restore() {
        Idem.install(previous);
        engine.close();
    }

    @Test
    void theSampleIsWovenAtCompileTime() {
        WeavingCheck.requireWoven(IdempotentArticlePipeline.class);
    }

    @Test
    @Timeout(60) // worker threads, a shared rate limiter and retries
    void withIdemEachJobIsBilledAndPublishedExactlyOnceAndTheReusedIdIsRefused() throws Exception {
        RetryStorm.Outcome idem = RetryStorm.replay(true);

        assertEquals(Map.of("go", 1, "java", 1, "kotlin", 1, "rust", 1), idem.publishedByTopic());
        assertEquals(4, idem.billedCalls(), "one billed call per job");
        assertEquals(1, idem.conflicts());
        // The burst's 429 was retried inside the boundary, once, for all four workers: five attempts, four operations.
        assertEquals(1, idem.rateLimited());
        assertEquals(5, idem.upstreamAttempts());
        assertEquals(1, events.stream().filter(e -> e.type() == IdempotencyEventType.RETRY).count());
        IdempotencyEvent retry = events.stream().filter(e -> e.type() == IdempotencyEventType.RETRY).findFirst()
                .orElseThrow();
        assertTrue(retry.delay().toMillis() >= 40, "the 429's Retry-After of 40ms was honoured: " + retry.delay());
    }

    @Test
    @Timeout(60)
    void withoutIdemTheSameDayPaysAndPublishesDuplicates() throws Exception {
        RetryStorm.Outcome plain = RetryStorm.replay(false);

        assertEquals(Map.of("go", 4, "golang", 1, "java", 2, "kotlin", 2, "rust", 4), plain.publishedByTopic());
        assertEquals(13, plain.billedCalls(), "4 + 2 + 2 + 4 + 1");
        assertTrue(plain.rateLimited() >= 1, "the burst met the rate limiter");
    }

    /** The composition example of docs/retries.md: Resilience4j outside the boundary, @Retry inside, one operation. */
    @Test
    @Timeout(30)
    void aLostResponseIsRetriedOutsideAndA429InsideAndTheUpstreamBillsOnce() {
        GenerationApi api = new GenerationApi().rateLimit(RetryStorm.prompt("rust"), Duration.ofMillis(30));
        Cms cms = new Cms();
        AtomicInteger lost = new AtomicInteger();
        ComposedRetries jobs = new ComposedRetries(new IdempotentArticlePipeline(api, cms), article -> {
            if (lost.getAndIncrement() == 0) {
                throw new UncheckedIOException(new IOException("connection reset on the way back"));
            }
            return article;
        });

        Article article = jobs.produce("daily-rust", "rust", RetryStorm.DAY);

        assertEquals("rust", article.topic());
        assertEquals(1, api.rateLimitedResponses(), "the 429 reached the upstream once, and was retried inside");
        assertEquals(1, api.billedCalls(), "the lost response's retry got the stored result");
        assertEquals(Map.of("rust", 1), cms.publishedByTopic());
        assertEquals(1, events.stream().filter(e -> e.type() == IdempotencyEventType.RETRY).count());
        assertEquals(1, events.stream().filter(e -> e.type() == IdempotencyEventType.REPLAYED).count());
    }
}
