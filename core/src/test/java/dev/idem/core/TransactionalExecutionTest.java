package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyStoreException;
import dev.idem.Idempotent;
import dev.idem.OnInProgress;
import dev.idem.StoreTransaction;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import dev.idem.store.tck.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's transactional path (SEMANTICS.md section 9, {@code storeTransaction}) against a store that offers
 * transactional claims: what it claims, commits, rolls back, replays and publishes locally, and how it refuses.
 * The jdbc store's tests run the same path on real databases; these pin the engine's side of it.
 */
class TransactionalExecutionTest {
    private final TransactionalTestStore store = new TransactionalTestStore(
            new InMemoryIdempotencyStore(MutableClock.startingAt("2026-03-01T08:00:00Z")));
    private final EngineFixture fx = new EngineFixture(store, b -> {
    });
    private final Orders orders = new Orders();

    @AfterEach
    void close() {
        fx.close();
    }

    @SuppressWarnings("unused")
    static class Orders {
        final AtomicInteger runs = new AtomicInteger();
        volatile RuntimeException failure;

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED, waitTimeout = "3s")
        String place(@IdempotencyKey String order, int quantity) {
            runs.incrementAndGet();
            if (failure != null) {
                throw failure;
            }
            return order + " x" + quantity;
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED, onInProgress = OnInProgress.THROW)
        String placeOrThrow(String order) {
            runs.incrementAndGet();
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.MANDATORY)
        String placeInTransaction(String order) {
            runs.incrementAndGet();
            return order;
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED)
        Optional<String> find(String order) {
            runs.incrementAndGet();
            return Optional.of("found " + order);
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED)
        void cancel(String order) {
            runs.incrementAndGet();
        }

        @Idempotent(storeTransaction = StoreTransaction.REQUIRED)
        Object unencodable(String order) {
            runs.incrementAndGet();
            return new Object(); // not Serializable: the java codec cannot store it
        }
    }

    @Test
    void aCommittedResultIsReplayedLocallyWithoutAnotherTransaction() throws Throwable {
        assertEquals("o-1 x2", fx.call(orders, "place", "o-1", 2));
        assertEquals(1, store.commits.get());
        IdempotencyEvent executed = fx.last(IdempotencyEventType.EXECUTED);
        assertEquals("result committed with the method's writes", executed.detail());
        assertEquals(RecordState.COMPLETED, store.delegate.get(executed.key()).orElseThrow().state());
        assertEquals(List.of(Duration.ofSeconds(3)), store.lockWaits, "a WAIT caller waits up to its waitTimeout");

        assertEquals("o-1 x2", fx.call(orders, "place", "o-1", 2));
        assertEquals(1, orders.runs.get());
        assertEquals(1, store.begun.get(), "the second call was answered by the local results");
    }

    @Test
    void aCommittedRecordIsReplayedFromTheStoreByAnotherEngine() throws Throwable {
        fx.call(orders, "place", "o-1", 2);
        try (EngineFixture other = new EngineFixture(store, b -> {
        })) {
            assertEquals("o-1 x2", other.call(orders, "place", "o-1", 2));
            assertEquals("from the store", other.last(IdempotencyEventType.REPLAYED).detail());
            assertEquals(2, store.begun.get());
            assertEquals("o-1 x2", other.call(orders, "place", "o-1", 2));
            assertEquals(2, store.begun.get(), "the replayed result is published to the local results");
        }
        assertEquals(1, orders.runs.get());
    }

    @Test
    void aFailingMethodRollsItsClaimBackAndRunsAgainNextTime() throws Throwable {
        orders.failure = new IllegalStateException("declined");
        assertSame(orders.failure, assertThrows(IllegalStateException.class,
                () -> fx.call(orders, "place", "o-1", 2)));
        assertEquals(1, store.rollbacks.get());
        assertEquals(0, store.commits.get());
        orders.failure = null;
        assertEquals("o-1 x2", fx.call(orders, "place", "o-1", 2));
        assertEquals(2, orders.runs.get());
    }

    @Test
    void theSameKeyWithOtherArgumentsIsAConflict() throws Throwable {
        fx.call(orders, "place", "o-1", 2);
        try (EngineFixture other = new EngineFixture(store, b -> {
        })) {
            IdempotencyConflictException e = assertThrows(IdempotencyConflictException.class,
                    () -> other.call(orders, "place", "o-1", 3));
            assertTrue(e.getMessage().contains("was already used with other arguments"), e.getMessage());
            assertEquals(1, other.count(IdempotencyEventType.CONFLICT));
        }
        assertEquals(1, orders.runs.get());
    }

    @Test
    void aRowHeldByAnotherTransactionIsInProgressAfterTheLockWait() {
        store.rowHeldElsewhere = true;
        IdempotencyInProgressException waited = assertThrows(IdempotencyInProgressException.class,
                () -> fx.call(orders, "place", "o-1", 2));
        assertTrue(waited.getMessage().contains("which did not end within waitTimeout = PT3S"), waited.getMessage());
        IdempotencyInProgressException thrown = assertThrows(IdempotencyInProgressException.class,
                () -> fx.call(orders, "placeOrThrow", "o-2"));
        assertTrue(thrown.getMessage().contains("which did not end within onInProgress = THROW"),
                thrown.getMessage());
        assertEquals(List.of(Duration.ofSeconds(3), Duration.ZERO), store.lockWaits,
                "THROW waits on the row not at all");
        assertEquals("held by an open transaction", fx.last(IdempotencyEventType.IN_PROGRESS).detail());
        assertEquals(0, orders.runs.get());
    }

    @Test
    void aPlainCallsClaimInProgressIsNotRunOver() throws Throwable {
        fx.call(orders, "placeOrThrow", "o-1");
        IdempotencyRecord committed = store.delegate.get(fx.last(IdempotencyEventType.EXECUTED).key()).orElseThrow();
        store.delegate.delete(committed.key());
        store.delegate.claim(new ClaimRequest(committed.key(), committed.payloadHash(), "plain-caller",
                Duration.ofMinutes(1), Duration.ofMinutes(5)));
        try (EngineFixture other = new EngineFixture(store, b -> {
        })) {
            IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
                    () -> other.call(orders, "placeOrThrow", "o-1"));
            assertTrue(e.getMessage().contains("by plain-caller outside any transaction"), e.getMessage());
            assertEquals("held by plain-caller", other.last(IdempotencyEventType.IN_PROGRESS).detail());
        }
        assertEquals(1, orders.runs.get());
    }

    @Test
    void mandatoryRunsOnlyInTheApplicationsTransactionAndPublishesNothingLocally() throws Throwable {
        IdempotencyConfigurationException refused = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.call(orders, "placeInTransaction", "o-1"));
        assertTrue(refused.getMessage().contains("no application transaction is bound to this thread"),
                refused.getMessage());
        assertEquals(0, orders.runs.get());

        store.applicationTransaction = true;
        int asked = store.begun.get();
        assertEquals("o-1", fx.call(orders, "placeInTransaction", "o-1"));
        assertEquals("result stored in the application's transaction",
                fx.last(IdempotencyEventType.EXECUTED).detail());
        assertEquals("o-1", fx.call(orders, "placeInTransaction", "o-1"));
        assertEquals(1, orders.runs.get());
        assertEquals(asked + 2, store.begun.get(), "a joined transaction's result is read from the store, not locally");
        assertEquals(1, fx.count(IdempotencyEventType.REPLAYED));
        assertEquals("o-1", fx.call(orders, "placeInTransaction", "o-1"));
        assertEquals(asked + 3, store.begun.get(), "nor is its replay published locally");
    }

    @Test
    void optionalAndVoidResultsAreStoredAsTheirValue() throws Throwable {
        assertEquals(Optional.of("found o-1"), fx.call(orders, "find", "o-1"));
        assertEquals(null, fx.call(orders, "cancel", "o-1"));
        try (EngineFixture other = new EngineFixture(store, b -> {
        })) {
            assertEquals(Optional.of("found o-1"), other.call(orders, "find", "o-1"));
            assertEquals(null, other.call(orders, "cancel", "o-1"));
            assertEquals(2, other.count(IdempotencyEventType.REPLAYED));
        }
        assertEquals(2, orders.runs.get());
    }

    @Test
    void aResultThatCannotBeEncodedRollsBack() {
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> fx.call(orders, "unencodable", "o-1"));
        assertTrue(e.getMessage().contains("could not be encoded"), e.getMessage());
        assertEquals(1, store.rollbacks.get());
        assertEquals(0, store.commits.get());
    }

    @Test
    void aRefusedCompletionRollsBack() {
        store.refuseCompletion = true;
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> fx.call(orders, "place", "o-1", 2));
        assertTrue(e.getMessage().contains("was refused although this transaction holds its row"), e.getMessage());
        assertEquals(1, store.rollbacks.get());
        assertEquals(0, store.commits.get());
    }

    @Test
    void aStoreFailureBeforeTheMethodFailsClosed() {
        store.beginFailure = new IdempotencyStoreException("connection refused");
        IdempotencyStoreException begin = assertThrows(IdempotencyStoreException.class,
                () -> fx.call(orders, "place", "o-1", 2));
        assertTrue(begin.getMessage().contains("failed beginning the transaction"), begin.getMessage());
        assertSame(store.beginFailure, begin.getCause());
        assertEquals("store failed beginning the transaction", fx.last(IdempotencyEventType.STORE_ERROR).detail());

        store.beginFailure = null;
        store.claimFailure = new IdempotencyStoreException("deadlock");
        IdempotencyStoreException claim = assertThrows(IdempotencyStoreException.class,
                () -> fx.call(orders, "place", "o-1", 2));
        assertTrue(claim.getMessage().contains("failed claiming the key"), claim.getMessage());
        assertTrue(claim.getMessage().contains("storeTransaction fails closed"), claim.getMessage());
        assertFalse(fx.events.isEmpty());
        assertEquals(0, orders.runs.get());
    }
}
