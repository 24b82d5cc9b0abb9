package dev.idem.samples;

import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
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

/** The README's composition example: Resilience4j outside the boundary, @Retry inside, one operation. */
class ComposedRetriesTest {
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private IdemEngine engine;
    private IdemEngine previous;

    @BeforeEach
    void install() {
        engine = IdemEngine.create(IdemSettings.custom().namespace("composed-test").listener(events::add).build());
        previous = Idem.install(engine);
    }

    @AfterEach
    void restore() {
        Idem.install(previous);
        engine.close();
    }

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
