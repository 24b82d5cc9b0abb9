package dev.idem.core.internal.call;

import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.internal.key.CallKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/behaviour.md, "Events ... go to IdempotencyListeners; the ones an operator must see are also logged":
 * INDETERMINATE, LEASE_LOST, FAIL_OPEN, RESULT_NOT_STORED and RESULT_UNREADABLE, with or without a listener. A
 * listener that throws never breaks the call.
 */
class EventsTest {
    private static final Set<IdempotencyEventType> LOGGED = EnumSet.of(IdempotencyEventType.INDETERMINATE,
            IdempotencyEventType.LEASE_LOST, IdempotencyEventType.FAIL_OPEN, IdempotencyEventType.RESULT_NOT_STORED,
            IdempotencyEventType.RESULT_UNREADABLE, IdempotencyEventType.ABANDONED);

    private final Logger logger = Logger.getLogger("dev.idem");
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private boolean parentHandlers;

    @BeforeEach
    void captureTheLog() {
        parentHandlers = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false); // keep the expected warnings out of the build's output
        logger.addHandler(capture);
    }

    @AfterEach
    void restoreTheLog() {
        logger.removeHandler(capture);
        logger.setUseParentHandlers(parentHandlers);
    }

    @Test
    void everyListenerGetsTheEventWithItsFields() {
        List<IdempotencyEvent> first = new ArrayList<>();
        List<IdempotencyEvent> second = new ArrayList<>();
        Events events = new Events(List.of(first::add, second::add), java.time.Clock.systemUTC());
        RuntimeException cause = new RuntimeException("store down");
        CallKey key = new CallKey("ns", "scope", 1, 2);

        events.emit(IdempotencyEventType.STORE_ERROR, "Jobs#run", key, 7, "detail", cause);
        events.emit(IdempotencyEventType.EXECUTED, "Jobs#run", "idem:ns:s:k", 8, "stored");

        assertEquals(List.of(new IdempotencyEvent(IdempotencyEventType.STORE_ERROR, "Jobs#run", key.toString(), 7,
                "detail", cause), new IdempotencyEvent(IdempotencyEventType.EXECUTED, "Jobs#run", "idem:ns:s:k", 8,
                "stored", null)), first);
        assertEquals(first, second);
        assertSame(cause, first.get(0).cause());
        assertTrue(logged.isEmpty(), "neither is an event an operator must see: " + logged);
    }

    @Test
    void theEventsAnOperatorMustSeeAreLoggedAsWarningsAlsoWithoutAListener() {
        Events silent = new Events(List.of(), java.time.Clock.systemUTC());
        RuntimeException cause = new RuntimeException("lost");
        for (IdempotencyEventType type : IdempotencyEventType.values()) {
            silent.emit(type, "Jobs#run", "idem:ns:s:k", 3, "what happened", cause);
        }
        List<String> messages = logged.stream().map(LogRecord::getMessage).toList();
        assertEquals(List.of("INDETERMINATE Jobs#run idem:ns:s:k: what happened",
                "LEASE_LOST Jobs#run idem:ns:s:k: what happened", "FAIL_OPEN Jobs#run idem:ns:s:k: what happened",
                "RESULT_NOT_STORED Jobs#run idem:ns:s:k: what happened",
                "RESULT_UNREADABLE Jobs#run idem:ns:s:k: what happened", "ABANDONED Jobs#run idem:ns:s:k: what happened"),
                messages.stream().sorted((a, b) -> order(a) - order(b)).toList());
        for (LogRecord record : logged) {
            assertEquals(Level.WARNING, record.getLevel());
            assertSame(cause, record.getThrown());
        }
    }

    private static int order(String message) {
        return List.of("INDETERMINATE", "LEASE_LOST", "FAIL_OPEN", "RESULT_NOT_STORED", "RESULT_UNREADABLE", "ABANDONED").indexOf(message.substring(0, message.indexOf(' ')));
    }

    @Test
    void withAListenerTheLoggedEventsAreBothLoggedAndDelivered() {
        List<IdempotencyEvent> seen = new ArrayList<>();
        Events events = new Events(List.of(seen::add), java.time.Clock.systemUTC());
        for (IdempotencyEventType type : IdempotencyEventType.values()) {
            events.emit(type, "Jobs#run", "k", 0, "d");
        }
        assertEquals(IdempotencyEventType.values().length, seen.size());
        assertEquals(LOGGED.size(), logged.size());
        assertNull(logged.get(0).getThrown());
    }

    @Test
    void unprotectedRunsAreWarnedAboutAtMostOnceAMinuteWithHowManySinceTheLastLine() {
        dev.idem.store.tck.MutableClock clock = dev.idem.store.tck.MutableClock.startingAt("2026-01-01T00:00:00Z");
        List<IdempotencyEvent> seen = new ArrayList<>();
        Events events = new Events(List.of(seen::add), clock);
        for (int i = 0; i < 5; i++) {
            events.emit(IdempotencyEventType.FAIL_OPEN, "Jobs#run", "k" + i, 0, "the store is down");
        }
        assertEquals(5, seen.size(), "every run is an event");
        assertEquals(List.of("FAIL_OPEN Jobs#run k0: the store is down"),
                logged.stream().map(LogRecord::getMessage).toList(), "one line for the five");
        clock.advance(java.time.Duration.ofSeconds(59));
        events.emit(IdempotencyEventType.FAIL_OPEN, "Jobs#run", "k5", 0, "the store is down");
        assertEquals(1, logged.size());
        clock.advance(java.time.Duration.ofSeconds(1));
        events.emit(IdempotencyEventType.FAIL_OPEN, "Jobs#run", "k6", 0, "the store is down");
        assertEquals(2, logged.size());
        assertEquals("FAIL_OPEN Jobs#run k6: the store is down (and 5 more unprotected runs since the last such"
                + " warning; at most one a minute)", logged.get(1).getMessage());
        events.emit(IdempotencyEventType.LEASE_LOST, "Jobs#run", "k", 0, "lost");
        events.emit(IdempotencyEventType.LEASE_LOST, "Jobs#run", "k", 0, "lost");
        assertEquals(4, logged.size(), "other warnings are not held back");
    }

    @Test
    void aListenerThatThrowsIsLoggedAndTheOthersStillGetTheEvent() {
        List<IdempotencyEvent> after = new ArrayList<>();
        IdempotencyListener broken = event -> {
            throw new IllegalStateException("listener bug");
        };
        Events events = new Events(List.of(broken, after::add), java.time.Clock.systemUTC());

        events.emit(IdempotencyEventType.REPLAYED, "Jobs#run", "k", 0, "d");

        assertEquals(1, after.size());
        assertEquals(1, logged.size());
        assertTrue(logged.get(0).getMessage().contains("threw on REPLAYED"), logged.get(0).getMessage());
        assertEquals("listener bug", logged.get(0).getThrown().getMessage());
    }
}
