package dev.idem.core;

import java.time.Instant;

/**
 * An execution whose owner stopped renewing its lease, as a {@link Reconciler} is told about it.
 *
 * @param operation     the operation, {@code com.acme.OrderService#create} or a programmatic operation's name
 * @param key           the full idempotency key, the same the dead execution saw in
 *                      {@code IdempotencyContext.current().key()}: the stable id to look the work up by
 * @param fencingToken  the fencing token of the abandoned claim, as the dead execution saw it in
 *                      {@code IdempotencyContext.current().fencingToken()}. If an earlier reconciliation of the
 *                      same key failed, that caller's claim is the one abandoned, so look work up by the key
 * @param owner         the process that held the claim ({@code pid/random}, as the store records it)
 * @param startedAt     when the first execution of the key started
 * @param leaseUntil    when the abandoned claim's lease passed
 * @param claimToken    the fencing token of the claim this caller now holds (larger than {@code fencingToken})
 */
public record AbandonedExecution(String operation, String key, long fencingToken, String owner, Instant startedAt,
                                 Instant leaseUntil, long claimToken) {
}
