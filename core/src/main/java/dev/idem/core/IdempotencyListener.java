package dev.idem.core;

/**
 * Receives {@link IdempotencyEvent}s, for metrics and alerts. Register one with
 * {@link IdemSettings.Builder#listener(IdempotencyListener)} or in
 * {@code META-INF/services/dev.idem.core.IdempotencyListener}.
 *
 * <p>Called on the caller's thread (or the heartbeat's, for {@code LEASE_LOST}), so it must be quick and must not
 * block; an exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface IdempotencyListener {
    /**
     * Receives one event.
     *
     * @param event what happened, to which operation and key
     */
    void onEvent(IdempotencyEvent event);
}
