package dev.idem.core;

import jakarta.annotation.Nullable;

import java.time.Duration;

/**
 * One thing that happened to one call.
 *
 * @param type         what happened
 * @param operation    the operation, {@code com.acme.Pipeline#generate} or a programmatic operation's name
 * @param key          the full idempotency key
 * @param fencingToken the claim's token, or 0 when the call held no claim
 * @param detail       a human-readable detail, never an argument value
 * @param cause        the exception involved, if any
 * @param attempt      for {@link IdempotencyEventType#RETRY RETRY} and {@link IdempotencyEventType#GAVE_UP GAVE_UP},
 *                     the number of the attempt that failed (1 for the first); 0 for other events
 * @param delay        for {@link IdempotencyEventType#RETRY RETRY}, the pause before the next attempt; null for other
 *                     events
 */
public record IdempotencyEvent(IdempotencyEventType type, String operation, String key, long fencingToken,
                               String detail, @Nullable Throwable cause, int attempt, @Nullable Duration delay) {

    /**
     * An event that is not about an attempt: {@code attempt} 0, no {@code delay}.
     *
     * @param type         what happened
     * @param operation    the operation
     * @param key          the full idempotency key
     * @param fencingToken the claim's token, or 0 when the call held no claim
     * @param detail       a human-readable detail, never an argument value
     * @param cause        the exception involved, if any
     */
    public IdempotencyEvent(IdempotencyEventType type, String operation, String key, long fencingToken,
                            String detail, @Nullable Throwable cause) {
        this(type, operation, key, fencingToken, detail, cause, 0, null);
    }
}
