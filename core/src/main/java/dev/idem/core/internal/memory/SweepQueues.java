package dev.idem.core.internal.memory;

import java.util.Arrays;

/**
 * The sweep queues of a store, one per ttl seen: a finished record joins the queue of its ttl, so each queue is in
 * the order in which its records may be swept. The order is exact between records of up to {@value #MAX_QUEUES}
 * distinct ttls; records of further ttls share the queue of the nearest ttl, and are ordered by completion within
 * it.
 */
public final class SweepQueues {
    /** Distinct ttls that get a sweep queue of their own. */
    static final int MAX_QUEUES = 64;
    /**
     * The latest sweep time a record gets: {@link Long#MAX_VALUE} marks an empty queue's head, and a record of a ttl
     * near that (kept for ever) must still be found at a queue's head to be evicted by the bound.
     */
    public static final long LAST_SWEEP = Long.MAX_VALUE - 1;

    /** One per ttl seen (up to {@link #MAX_QUEUES}); replaced whole when one is added. */
    private volatile SweepQueue[] queues = new SweepQueue[0];

    /** Links {@code record}, just finished with a ttl of {@code ttlMillis}, at the tail of its ttl's queue. */
    public void append(long ttlMillis, MemoryRecord record) {
        queueFor(ttlMillis).append(record);
    }

    /** The queue of {@code ttlMillis}, made on its first use; past {@link #MAX_QUEUES}, that of the nearest ttl. */
    private SweepQueue queueFor(long ttlMillis) {
        for (SweepQueue q : queues) {
            if (q.ttlMillis == ttlMillis) {
                return q;
            }
        }
        synchronized (this) {
            SweepQueue[] current = queues;
            SweepQueue nearest = null;
            for (SweepQueue q : current) {
                if (q.ttlMillis == ttlMillis) {
                    return q;
                }
                if (nearest == null || Math.abs(q.ttlMillis - ttlMillis) < Math.abs(nearest.ttlMillis - ttlMillis)) {
                    nearest = q;
                }
            }
            if (current.length >= MAX_QUEUES) {
                return nearest;
            }
            SweepQueue added = new SweepQueue(ttlMillis);
            SweepQueue[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = added;
            queues = grown;
            return added;
        }
    }

    /** Whether the head of some queue is due for its sweep at {@code now}. */
    boolean anyDue(long now) {
        for (SweepQueue q : queues) {
            if (now >= q.headSweepAt) {
                return true;
            }
        }
        return false;
    }

    /** Takes the head of a queue if it is due at {@code now}, the queues in order; null when none is. */
    MemoryRecord pollDue(long now) {
        for (SweepQueue q : queues) {
            if (now >= q.headSweepAt) {
                MemoryRecord e = q.poll();
                if (e != null) {
                    return e;
                }
            }
        }
        return null;
    }

    /**
     * Takes the head that is due first of all the queues' heads (on a tie, that of the queue made first); null when
     * every queue is empty.
     */
    MemoryRecord pollFirstDue() {
        SweepQueue first = null;
        for (SweepQueue q : queues) {
            if (q.headSweepAt != Long.MAX_VALUE && (first == null || q.headSweepAt < first.headSweepAt)) {
                first = q;
            }
        }
        return first == null ? null : first.poll();
    }

    /** Unlinks every removed record from every queue; returns how many. */
    long compact() {
        long unlinked = 0;
        for (SweepQueue q : queues) {
            unlinked += q.compact();
        }
        return unlinked;
    }

    /** How many records the queues link, removed ones not yet unlinked included (for tests). */
    public long linked() {
        long n = 0;
        for (SweepQueue q : queues) {
            n += q.linked();
        }
        return n;
    }

    /** How many queues there are (for tests). */
    public int count() {
        return queues.length;
    }
}
