/**
 * The parts of {@link dev.idem.core.InMemoryIdempotencyStore}: one record from its claim to its end
 * ({@link dev.idem.core.internal.memory.MemoryRecord}), the records held and their byte estimate
 * ({@link dev.idem.core.internal.memory.HeldRecords}), the sweep queues that order finished records for expiry and
 * eviction ({@link dev.idem.core.internal.memory.SweepQueues}), the housekeeping writers do after a write
 * ({@link dev.idem.core.internal.memory.Housekeeping}) and the reports of records evicted while they still counted
 * ({@link dev.idem.core.internal.memory.EvictionReports}). Not API.
 *
 * <p>May depend on {@code internal.call} (the engine's eviction tally); nothing in {@code internal} depends on it.
 */
package dev.idem.core.internal.memory;
