package dev.idem.core;

import jakarta.annotation.Nullable;

/**
 * One thing that happened to one call.
 *
 * @param type         what happened
 * @param operation    the operation, {@code com.acme.Pipeline#generate} or a programmatic operation's name
 * @param key          the full idempotency key
 * @param fencingToken the claim's token, or 0 when the call held no claim
 * @param detail       a human-readable detail, never an argument value
 * @param cause        the exception involved, if any
 */
public record IdempotencyEvent(IdempotencyEventType type, String operation, String key, long fencingToken,
                               String detail, @Nullable Throwable cause) {
}
