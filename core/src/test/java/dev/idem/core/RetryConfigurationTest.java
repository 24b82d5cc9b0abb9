package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.Retry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code retry} and {@code maxConcurrent} are validated when the method is planned, errors naming both. */
class RetryConfigurationTest {
    private final EngineFixture fx = new EngineFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @SuppressWarnings("unused")
    static class Bad {
        @Idempotent(retry = @Retry(base = "5x"))
        String badBase(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(cap = "soon"))
        String badCap(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(maxRetryAfter = "1 minute"))
        String badMaxRetryAfter(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(maxAttempts = 0))
        String noAttempt(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(base = "2s", cap = "1s"))
        String capBelowBase(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(base = "0s"))
        String zeroBase(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(on = StackOverflowError.class))
        String retriesAnError(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(on = UncheckedIOException.class), noRetryFor = RuntimeException.class)
        String retriesWhatIsNeverRetried(String a) {
            return a;
        }

        @Idempotent(maxConcurrent = -1)
        String negativeLimit(String a) {
            return a;
        }

        @Idempotent(scope = "shared-upstream", maxConcurrent = 4)
        String fourAtOnce(String a) {
            return a;
        }

        @Idempotent(scope = "shared-upstream", maxConcurrent = 8)
        String eightAtOnce(String a) {
            return a;
        }

        @Idempotent(retry = @Retry(maxAttempts = 5, base = "1s", cap = "20s", maxRetryAfter = "1m",
                on = IOException.class))
        String fine(String a) {
            return a;
        }

        @Idempotent
        String noRetry(String a) {
            return a;
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "badBase           | @Idempotent(retry = @Retry(base = \"5x\")) is not a duration",
        "badCap            | @Idempotent(retry = @Retry(cap = \"soon\")) is not a duration",
        "badMaxRetryAfter  | @Idempotent(retry = @Retry(maxRetryAfter = \"1 minute\")) is not a duration",
        "noAttempt         | @Idempotent(retry = @Retry(maxAttempts = 0)) must be at least 1",
        "capBelowBase      | @Idempotent(retry = @Retry(cap = \"PT1S\")) is shorter than base = \"PT2S\"",
        "zeroBase          | @Idempotent(retry = @Retry(base = \"PT0S\")) must be longer than zero",
        "retriesAnError    | @Idempotent(retry = @Retry(on = java.lang.StackOverflowError.class)) lists an Error",
        "retriesWhatIsNeverRetried | @Idempotent(retry = @Retry(on = java.io.UncheckedIOException.class)) is never"
                + " retried, because noRetryFor lists java.lang.RuntimeException",
        "negativeLimit     | @Idempotent(maxConcurrent = -1) must be at least 1, or 0 for no limit",
    })
    void aBadRetryOrLimitIsRefusedNamingTheMethodAndTheAttribute(String method, String expected) {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(EngineFixture.find(Bad.class, method)));
        assertTrue(e.getMessage().startsWith(Bad.class.getName() + "#" + method + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void operationsOfOneScopeMustDeclareOneLimit() {
        fx.engine.validate(EngineFixture.find(Bad.class, "fourAtOnce"));
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(EngineFixture.find(Bad.class, "eightAtOnce")));
        assertTrue(e.getMessage().contains("#eightAtOnce: @Idempotent(maxConcurrent = 8) differs from the"
                + " maxConcurrent = 4 of " + Bad.class.getName() + "#fourAtOnce"), e.getMessage());
    }

    @Test
    void theAnnotationBecomesThePolicyAndNoRetryIsTheDefault() throws Exception {
        IdempotencyPolicy fine = IdempotencyPolicy.from(EngineFixture.find(Bad.class, "fine")
                .getAnnotation(Idempotent.class), "Bad#fine");
        assertEquals(5, fine.retry().maxAttempts());
        assertEquals(Duration.ofSeconds(1), fine.retry().base());
        assertEquals(Duration.ofSeconds(20), fine.retry().cap());
        assertEquals(Duration.ofMinutes(1), fine.retry().maxRetryAfter());
        assertEquals(java.util.List.of(IOException.class), fine.retry().on());
        assertEquals(0, fine.maxConcurrent());

        IdempotencyPolicy plain = IdempotencyPolicy.from(EngineFixture.find(Bad.class, "noRetry")
                .getAnnotation(Idempotent.class), "Bad#noRetry");
        assertFalse(plain.retry().retries());
        assertEquals(1, plain.retry().maxAttempts());
        assertEquals(RetryPolicy.custom().build().cap(), RetryPolicy.custom().build().maxRetryAfter(),
                "maxRetryAfter defaults to the cap");
    }

    @Test
    void theProgrammaticBuilderRefusesTheSameValues() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> RetryPolicy.custom().base("3s").cap("1s").build());
        assertEquals("@Retry(cap = \"PT1S\") is shorter than base = \"PT3S\"; the cap bounds the doubling pauses, so"
                + " it must be at least the first", e.getMessage());
        assertThrows(IdempotencyConfigurationException.class, () -> RetryPolicy.custom().maxAttempts(-2));
        RetryPolicy policy = RetryPolicy.custom().maxAttempts(4).base(Duration.ofMillis(50)).build();
        IdempotencyPolicy withRetry = IdempotencyPolicy.custom().scope("p").retry(policy).maxConcurrent(3).build();
        assertEquals(policy, withRetry.retry());
        assertEquals(3, IdempotencyPolicy.from(withRetry).build().maxConcurrent());
    }
}
