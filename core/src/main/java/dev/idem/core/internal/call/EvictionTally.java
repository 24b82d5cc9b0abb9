package dev.idem.core.internal.call;

import dev.idem.core.IdempotencyListener;

/**
 * An eviction listener that needs the events themselves only now and then: the engine's, which counts every eviction
 * but builds a line from one of them at most once a minute, and passes events on only when it has listeners. Under
 * a flood of new keys the in-memory store evicts a record for nearly every write; building each event (its scope and
 * a sentence of detail) for nobody to read would double what such a write allocates.
 *
 * <p>The in-memory store asks {@link #wantsEvent()} before building the event of an eviction for this listener; when
 * it says no, the store calls {@link #skipped()} instead of {@link #onEvent}.
 */
public interface EvictionTally extends IdempotencyListener {
    /** {@return whether the next eviction must be delivered to {@link #onEvent} as an event} */
    boolean wantsEvent();

    /** One eviction that was counted without an event, because {@link #wantsEvent()} said none was needed. */
    void skipped();
}
