/**
 * One call's path through the engine, from the front-end's invocation to its result: {@link
 * dev.idem.core.internal.call.CallRunner} (local results, coalescing in this JVM, the claim), {@link
 * dev.idem.core.internal.call.ClaimedExecution} with its lease heartbeat, {@link
 * dev.idem.core.internal.call.AttemptRunner} (retries), waiting on another process's execution, reconciling
 * abandoned claims, the store-transaction path, the context an execution runs in and the events it reports. Not API.
 *
 * <p>May depend on {@code internal.plan} (what to do for a method), {@code internal.key} (which call this is),
 * {@code internal.codec} (its result as bytes) and {@code internal.retry}; none of those depends on it.
 */
package dev.idem.core.internal.call;
