package dev.idem.core.internal.memory;

import dev.idem.store.RecordState;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The records a store holds, by key, with the store's estimate of their bytes and the count of finished records
 * removed from the map but still linked in a sweep queue. Every change of a key's mapping away from a record is
 * made holding that record's lock, through {@link #detach} or {@link #removeSwept}, so the counts follow the map.
 */
public final class HeldRecords {
    private final ConcurrentHashMap<String, MemoryRecord> byKey = new ConcurrentHashMap<>();
    /** Estimated bytes of the records held: added when a record is stored or finished, subtracted when removed. */
    private final LongAdder bytes = new LongAdder();
    /** Finished records removed from the map but still linked in a sweep queue; compacted away past a bound. */
    private final LongAdder unlinkedRemoved = new LongAdder();

    /** The map itself: the store claims, replaces and reads records in it directly. */
    public ConcurrentHashMap<String, MemoryRecord> byKey() {
        return byKey;
    }

    /** Adds {@code delta} to the byte estimate (a record counted before it can be seen, a result as it is stored). */
    public void addBytes(long delta) {
        bytes.add(delta);
    }

    /** {@return about how many records are held, expired ones not yet swept included} */
    public long size() {
        return byKey.mappingCount();
    }

    /** {@return the estimate of the heap the records take} */
    public long bytes() {
        return bytes.sum();
    }

    /**
     * Marks {@code e}, which the caller has just unmapped holding its lock, as removed, and uncounts it. A finished
     * record removed other than through its sweep queue is still linked there: counted, so the queues are compacted
     * before such records add up.
     */
    public void detach(MemoryRecord e) {
        e.removed = true;
        bytes.add(-e.estimatedBytes());
        if (e.state != RecordState.IN_PROGRESS) {
            unlinkedRemoved.increment();
        }
    }

    /** Unmaps and detaches {@code e}; the caller holds its lock and saw it not removed. */
    void removeUnderLock(MemoryRecord e) {
        byKey.remove(e.key, e);
        detach(e);
    }

    /**
     * Removes {@code e}, just taken from its sweep queue, unless something else removed it already; returns whether
     * this call removed it.
     */
    boolean removeSwept(MemoryRecord e) {
        synchronized (e) {
            if (e.removed) {
                unlinkedRemoved.decrement();
                return false;
            }
            byKey.remove(e.key, e);
            e.removed = true;
            bytes.add(-e.estimatedBytes());
            return true;
        }
    }

    /** How many removed records are still linked in the sweep queues. */
    long unlinkedRemoved() {
        return unlinkedRemoved.sum();
    }

    /** Uncounts {@code n} removed records the sweep queues have just unlinked. */
    void unlinked(long n) {
        unlinkedRemoved.add(-n);
    }
}
