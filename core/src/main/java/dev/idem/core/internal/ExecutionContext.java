package dev.idem.core.internal;

import dev.idem.IdempotencyContext;

/** What {@link IdempotencyContext#current()} returns inside a running execution. */
record ExecutionContext(String key, long fencingToken) implements IdempotencyContext {
}
