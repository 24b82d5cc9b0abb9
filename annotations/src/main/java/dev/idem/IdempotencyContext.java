package dev.idem;

import dev.idem.internal.ContextSlot;

import java.util.Optional;

/**
 * The idempotency key and fencing token of the execution running on this thread, so a method can hand them to a
 * downstream API as that API's own {@code Idempotency-Key}: the only way to be exactly-once across a boundary Idem
 * does not own.
 */
public interface IdempotencyContext {

    /** {@return the context of the idempotent method running on this thread; empty outside one} */
    static Optional<IdempotencyContext> current() {
        return Optional.ofNullable(ContextSlot.get());
    }

    /** {@return the full key, {@code idem:{namespace}:{scope}:{32 hex}}} */
    String key();

    /** {@return the fencing token of this execution's claim; a takeover always gets a larger one} */
    long fencingToken();
}
