package dev.idem.core;

import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The classifier and Retry-After SPIs: registered ones are asked before the built-in ones, found in
 * {@code META-INF/services} like listeners, and one that throws counts as undecided. Through the programmatic API,
 * which takes the same {@link RetryPolicy} as the annotation.
 */
class RetrySpiTest {
    private final RecordingTimer timer = new RecordingTimer();
    private final EngineFixture fx = new EngineFixture(b -> b.retryTimer(timer).retryRandom(RecordingTimer.HIGHEST)
            .retryClassifier(failure -> {
                throw new IllegalStateException("a broken classifier");
            })
            .retryClassifier(failure -> failure instanceof Flaky ? RetryClassifier.Verdict.RETRYABLE
                    : RetryClassifier.Verdict.UNDECIDED)
            .retryAfter((failure, now) -> failure instanceof Flaky ? Optional.of(((Flaky) failure).wait)
                    : Optional.empty()));

    /** The broken classifier's warnings are expected: asserted here, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    RetrySpiTest() {
        timer.fx = fx;
    }

    @AfterEach
    void close() {
        fx.close();
    }

    /** An application's own failure, which only its own classifier knows. */
    static final class Flaky extends RuntimeException {
        final Duration wait;

        Flaky(Duration wait) {
            super("flaky");
            this.wait = wait;
        }
    }

    /** Listed in this module's test META-INF/services: retries {@link ServiceFlaky}. */
    public static final class ServiceClassifier implements RetryClassifier {
        @Override
        public Verdict classify(Throwable failure) {
            return failure instanceof ServiceFlaky ? Verdict.RETRYABLE : Verdict.UNDECIDED;
        }
    }

    /** Listed in this module's test META-INF/services: a ServiceFlaky asks for 42 seconds. */
    public static final class ServiceRetryAfter implements RetryAfter {
        @Override
        public Optional<Duration> find(Throwable failure, Instant now) {
            return failure instanceof ServiceFlaky ? Optional.of(Duration.ofSeconds(42)) : Optional.empty();
        }
    }

    /** A failure only the service-loaded classifier knows. */
    static final class ServiceFlaky extends RuntimeException {
    }

    @Test
    @Timeout(30)
    void aRegisteredClassifierAndRetryAfterAreAskedBeforeTheBuiltInOnes() throws Exception {
        IdempotentOperation<String> op = fx.engine.operation(IdempotencyPolicy.custom().operation("spi").scope("spi")
                .retry(RetryPolicy.custom().maxAttempts(3).base("1s").cap("10s").maxRetryAfter("1m").build())
                .build(), String.class);
        AtomicInteger runs = new AtomicInteger();

        String result = op.call(() -> {
            if (runs.incrementAndGet() < 3) {
                throw new Flaky(Duration.ofSeconds(25));
            }
            return "done";
        }, "k");

        assertEquals("done", result);
        assertEquals(3, runs.get());
        assertEquals(List.of(Duration.ofSeconds(25), Duration.ofSeconds(25)), timer.sleeps);
        assertTrue(fx.count(IdempotencyEventType.RETRY) == 2);

        AtomicInteger others = new AtomicInteger();
        assertThrows(IllegalArgumentException.class, () -> op.call(() -> {
            others.incrementAndGet();
            throw new IllegalArgumentException("nobody retries this");
        }, "other"));
        assertEquals(1, others.get());
        List<String> undecided = log.lines(Level.WARNING).stream().filter(l -> l.contains("taken as undecided"))
                .toList();
        assertEquals(3, undecided.size(), "the broken classifier is reported each time it throws: " + undecided);
        assertTrue(undecided.get(0).contains(Flaky.class.getName()), undecided.get(0));
        assertTrue(undecided.get(2).contains(IllegalArgumentException.class.getName()), undecided.get(2));
    }

    @Test
    void classifiersAndRetryAftersListedAsServicesAreFoundLikeListeners() {
        IdemSettings settings = IdemSettings.fromEnvironment();

        assertTrue(settings.retryClassifiers().stream().anyMatch(c -> c instanceof ServiceClassifier),
                "" + settings.retryClassifiers());
        assertTrue(settings.retryAfters().stream().anyMatch(r -> r instanceof ServiceRetryAfter));
        assertEquals(RetryClassifier.Verdict.RETRYABLE, settings.retryClassifiers().get(0).classify(new ServiceFlaky()));
    }
}
