package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.OnStoreError;
import dev.idem.Retry;
import dev.idem.StoreTransaction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transactional mode is refused when the method is planned, naming the method and the attribute, wherever it
 * cannot be kept: a store without the capability (the in-memory store), a result that arrives on another thread,
 * remembered failures, retries and a bulkhead it does not run, failing open. The method never runs unprotected.
 */
class StoreTransactionPlanningTest {
    private final EngineFixture fx = new EngineFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @SuppressWarnings("unused")
    static class Transactional {
        @Idempotent(storeTransaction = StoreTransaction.REQUIRED)
        String required(String order) {
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.MANDATORY)
        String mandatory(String order) {
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED)
        CompletableFuture<String> async(String order) {
            return CompletableFuture.completedFuture(order);
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED, failureTtl = "1m")
        String remembersFailures(String order) {
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED, noRetryFor = IllegalArgumentException.class)
        String noRetry(String order) {
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED, retry = @Retry(maxAttempts = 3))
        String retries(String order) {
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED, maxConcurrent = 4)
        String bulkhead(String order) {
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED, onStoreError = OnStoreError.FAIL_OPEN)
        String failsOpen(String order) {
            return order;
        }

        @Idempotent
        String plain(String order) {
            return order;
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "required          | storeTransaction = REQUIRED  | store \"memory\" cannot",
            "mandatory         | storeTransaction = MANDATORY | store \"memory\" cannot",
            "async             | storeTransaction = REQUIRED  | CompletionStage",
            "remembersFailures | storeTransaction = REQUIRED  | failureTtl",
            "noRetry           | storeTransaction = REQUIRED  | noRetryFor",
            "failsOpen         | storeTransaction = REQUIRED  | FAIL_OPEN",
            "retries           | storeTransaction = REQUIRED  | retry (maxAttempts = 3)",
            "bulkhead          | storeTransaction = REQUIRED  | maxConcurrent = 4",
    })
    void isRefusedAtPlanningWithTheMethodAndTheAttribute(String method, String attribute, String why) {
        Method m = EngineFixture.find(Transactional.class, method);
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(m));
        assertTrue(e.getMessage().contains(Transactional.class.getName() + "#" + method), e.getMessage());
        assertTrue(e.getMessage().contains(attribute), e.getMessage());
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void aRefusedMethodNeverRuns() {
        int[] runs = {0};
        Method m = EngineFixture.find(Transactional.class, "required");
        assertThrows(IdempotencyConfigurationException.class, () -> fx.engine.invoke(m, new Object[] {"o-1"}, () -> {
            runs[0]++;
            return "ran";
        }));
        assertEquals(0, runs[0]);
    }

    @Test
    void aProgrammaticOperationIsCheckedAlike() {
        fx.engine.validate(EngineFixture.find(Transactional.class, "plain"));
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("Orders#place").scope("orders")
                .storeTransaction(StoreTransaction.REQUIRED).build();
        assertEquals(StoreTransaction.REQUIRED, IdempotencyPolicy.from(policy).build().storeTransaction(),
                "from(base) keeps the mode");
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.operation(policy, String.class));
        assertTrue(e.getMessage().contains("Orders#place: @Idempotent(storeTransaction = REQUIRED)"), e.getMessage());
    }
}
