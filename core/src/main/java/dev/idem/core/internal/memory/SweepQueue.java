package dev.idem.core.internal.memory;

/**
 * The finished records of one ttl, in order of completion, which for one ttl is the order of their sweep times.
 * A record removed by other means (deleted, superseded) stays linked until it reaches the head, or until the
 * queues are compacted; it is skipped there.
 */
final class SweepQueue {
    final long ttlMillis;
    private MemoryRecord head; // guarded by this
    private MemoryRecord tail; // guarded by this
    /** The sweep time of the head, Long.MAX_VALUE when empty: read by every writer without the lock. */
    volatile long headSweepAt = Long.MAX_VALUE;

    SweepQueue(long ttlMillis) {
        this.ttlMillis = ttlMillis;
    }

    synchronized void append(MemoryRecord e) {
        if (tail == null) {
            head = e;
            headSweepAt = e.sweepAt;
        } else {
            tail.next = e;
        }
        tail = e;
    }

    /** Takes the head; null when empty. */
    synchronized MemoryRecord poll() {
        MemoryRecord e = head;
        if (e != null) {
            head = e.next;
            e.next = null;
            if (head == null) {
                tail = null;
            }
            headSweepAt = head == null ? Long.MAX_VALUE : head.sweepAt;
        }
        return e;
    }

    /** How many records are linked, removed ones not yet unlinked included. */
    synchronized long linked() {
        long n = 0;
        for (MemoryRecord e = head; e != null; e = e.next) {
            n++;
        }
        return n;
    }

    /** Unlinks every removed record; returns how many. */
    synchronized int compact() {
        int unlinked = 0;
        MemoryRecord previous = null;
        for (MemoryRecord e = head; e != null; ) {
            MemoryRecord following = e.next;
            if (isRemoved(e)) {
                if (previous == null) {
                    head = following;
                } else {
                    previous.next = following;
                }
                if (tail == e) {
                    tail = previous;
                }
                e.next = null;
                unlinked++;
            } else {
                previous = e;
            }
            e = following;
        }
        headSweepAt = head == null ? Long.MAX_VALUE : head.sweepAt;
        return unlinked;
    }

    private static boolean isRemoved(MemoryRecord e) {
        synchronized (e) {
            return e.removed;
        }
    }
}
