package dev.idem.core.internal;

import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyListener;

import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Delivers events to listeners. With no listener an event is never built, so the replay path allocates nothing
 * for it. The events an operator must see even without a listener (work whose result was not saved, lost leases,
 * unprotected runs) are also logged.
 */
final class Events {
    private static final System.Logger LOG = System.getLogger("dev.idem");

    private final IdempotencyListener[] listeners;

    Events(List<IdempotencyListener> listeners) {
        this.listeners = listeners.toArray(new IdempotencyListener[0]);
    }

    void emit(IdempotencyEventType type, String operation, Object key, long token, String detail, Throwable cause) {
        boolean logged = type == IdempotencyEventType.INDETERMINATE || type == IdempotencyEventType.LEASE_LOST
                || type == IdempotencyEventType.RESULT_NOT_STORED || type == IdempotencyEventType.RESULT_UNREADABLE
                || type == IdempotencyEventType.FAIL_OPEN;
        if (listeners.length == 0 && !logged) {
            return;
        }
        IdempotencyEvent event = new IdempotencyEvent(type, operation, String.valueOf(key), token, detail, cause);
        if (logged) {
            LOG.log(Level.WARNING, type + " " + operation + " " + key + ": " + detail, cause);
        }
        for (IdempotencyListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "idempotency listener " + listener + " threw on " + type, e);
            }
        }
    }

    void emit(IdempotencyEventType type, String operation, Object key, long token, String detail) {
        emit(type, operation, key, token, detail, null);
    }
}
