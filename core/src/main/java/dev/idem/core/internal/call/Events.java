package dev.idem.core.internal.call;

import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyListener;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Delivers events to listeners. With no listener an event is never built, so the replay path allocates nothing
 * for it. The events an operator must see even without a listener (work whose result was not saved, lost leases,
 * unprotected runs) are also logged. Two come in floods, so they are logged at most once a minute with the number
 * since the last line: unprotected runs ({@link #FAIL_OPEN_WARNING_INTERVAL_MILLIS}), one per call while a store is
 * down, and evictions by the in-memory store's bound ({@link #EVICTION_WARNING_INTERVAL_MILLIS}), one per evicted
 * record.
 */
public final class Events {
    private static final System.Logger LOG = System.getLogger("dev.idem");
    /** The least time between two eviction warnings, on the engine's clock. */
    static final long EVICTION_WARNING_INTERVAL_MILLIS = 60_000;
    /** The least time between two warnings of methods run unprotected (FAIL_OPEN), on the engine's clock. */
    static final long FAIL_OPEN_WARNING_INTERVAL_MILLIS = 60_000;

    private final IdempotencyListener[] listeners;
    private final Clock clock;
    private final AtomicLong evictedSinceWarning = new AtomicLong();
    private final AtomicLong nextEvictionWarningAt = new AtomicLong(Long.MIN_VALUE);
    private final WarningThrottle unprotectedRuns;

    public Events(List<IdempotencyListener> listeners, Clock clock) {
        this.listeners = listeners.toArray(new IdempotencyListener[0]);
        this.clock = clock;
        this.unprotectedRuns = new WarningThrottle(clock, FAIL_OPEN_WARNING_INTERVAL_MILLIS);
    }

    void emit(IdempotencyEventType type, String operation, Object key, long token, String detail, Throwable cause) {
        emit(type, operation, key, token, detail, cause, 0, null);
    }

    /** An event about attempt {@code attempt} of an execution, with the pause before the next one (or null). */
    void emit(IdempotencyEventType type, String operation, Object key, long token, String detail, Throwable cause,
              int attempt, Duration delay) {
        boolean logged = type == IdempotencyEventType.INDETERMINATE || type == IdempotencyEventType.LEASE_LOST
                || type == IdempotencyEventType.RESULT_NOT_STORED || type == IdempotencyEventType.RESULT_UNREADABLE
                || type == IdempotencyEventType.FAIL_OPEN || type == IdempotencyEventType.ABANDONED;
        if (listeners.length == 0 && !logged) {
            return;
        }
        IdempotencyEvent event = new IdempotencyEvent(type, operation, String.valueOf(key), token, detail, cause,
                attempt, delay);
        if (logged) {
            String line = type + " " + operation + " " + key + ": " + detail;
            if (type != IdempotencyEventType.FAIL_OPEN) {
                LOG.log(Level.WARNING, line, cause);
            } else {
                // Every call of an outage runs unprotected: one line a minute says so, and how often.
                long heldBack = unprotectedRuns.pass();
                if (heldBack >= 0) {
                    LOG.log(Level.WARNING, heldBack == 0 ? line : line + " (and " + heldBack + " more unprotected"
                            + " runs since the last such warning; at most one a minute)", cause);
                }
            }
        }
        deliver(event);
    }

    /**
     * Whether an event of a type that is never logged (such as {@code REPLAYED}) would reach anyone: the replay
     * path asks before it emits, so with no listener it does not even pass its arguments.
     */
    public boolean hasListeners() {
        return listeners.length != 0;
    }

    public void emit(IdempotencyEventType type, String operation, Object key, long token, String detail) {
        emit(type, operation, key, token, detail, null);
    }

    /**
     * The listener the engine registers on its in-memory stores: every eviction is counted, and an event is wanted
     * only when there are listeners to deliver it to or a warning is due.
     */
    public EvictionTally evictionListener() {
        return new EvictionTally() {
            @Override
            public void onEvent(IdempotencyEvent event) {
                evicted(event);
            }

            @Override
            public boolean wantsEvent() {
                return listeners.length > 0 || clock.millis() >= nextEvictionWarningAt.get();
            }

            @Override
            public void skipped() {
                evictedSinceWarning.incrementAndGet();
            }
        };
    }

    /** An {@link IdempotencyEventType#EVICTED EVICTED} event from an in-memory store: warned about, then delivered. */
    public void evicted(IdempotencyEvent event) {
        evictedSinceWarning.incrementAndGet();
        long now = clock.millis();
        long due = nextEvictionWarningAt.get();
        if (now >= due && nextEvictionWarningAt.compareAndSet(due, now + EVICTION_WARNING_INTERVAL_MILLIS)) {
            long evicted = evictedSinceWarning.getAndSet(0); // this one included, unless a racing line counted it
            if (evicted > 0) {
                LOG.log(Level.WARNING, evicted + (evicted == 1 ? " idempotency record" : " idempotency records")
                        + " that still counted " + (evicted == 1 ? "was" : "were") + " evicted by the in-memory"
                        + " store's bound " + (due == Long.MIN_VALUE ? "" : "since the last such warning ")
                        + "(at most one warning a minute): a duplicate of an evicted key may run the method again."
                        + " Raise idem.memory.maximumSize (idem.memory.maximumBytes if results are large), shorten"
                        + " the ttl, or use a shared store. Latest: " + event.operation() + " " + event.key() + ": "
                        + event.detail());
            }
        }
        deliver(event);
    }

    private void deliver(IdempotencyEvent event) {
        for (IdempotencyListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "idempotency listener " + listener + " threw on " + event.type(), e);
            }
        }
    }
}
