package dev.idem.core.internal.memory;

import dev.idem.store.RecordState;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.idem.core.internal.memory.SaturatedMillis.plus;

/**
 * What a writer does after its write, when something is due: sweeps the finished records whose sweep time has come,
 * scans for abandoned claims at most once per grace period, compacts the sweep queues once enough removed records
 * are still linked there, and brings the store one percent below whichever bound it passed by evicting finished
 * records, the one due for its sweep first. One writer does this at a time; the others go on (the bound is passed by
 * at most one record per concurrent writer until that batch is done), so no write waits for another's housekeeping.
 * In-progress records are never evicted by the bound, only swept a grace period after their lease passed.
 */
public final class Housekeeping {
    /** How long after its lease an in-progress record is swept: a takeover within it still sees what it replaces. */
    static final long IN_PROGRESS_GRACE_MILLIS = Duration.ofMinutes(10).toMillis();

    private final HeldRecords records;
    private final SweepQueues queues;
    private final EvictionReports reports;
    private final long maximumSize;
    private final long maximumBytes;
    /** When the next scan for abandoned claims is due (the store's millis). */
    private volatile long nextAbandonedScan;
    private final AtomicBoolean sweeping = new AtomicBoolean();

    /** Housekeeping of {@code records}, bounded by {@code maximumSize} and {@code maximumBytes}, from {@code now}. */
    public Housekeeping(HeldRecords records, SweepQueues queues, EvictionReports reports, long maximumSize,
                        long maximumBytes, long now) {
        this.records = records;
        this.queues = queues;
        this.reports = reports;
        this.maximumSize = maximumSize;
        this.maximumBytes = maximumBytes;
        this.nextAbandonedScan = plus(now, IN_PROGRESS_GRACE_MILLIS);
    }

    /** Does whatever is due after a write at {@code now} (see the class comment), unless another writer is at it. */
    public void afterWrite(long now) {
        if (!due(now) || !sweeping.compareAndSet(false, true)) {
            return;
        }
        List<MemoryRecord> reported = null;
        long sizeBefore = 0;
        long bytesBefore = 0;
        try {
            sweepDue(now);
            if (now >= nextAbandonedScan) {
                sweepAbandoned(now);
            }
            if (compactionDue()) {
                records.unlinked(queues.compact());
            }
            if (overBound()) {
                sizeBefore = records.size();
                bytesBefore = records.bytes();
                reported = evict(now, sizeBefore, bytesBefore);
            }
        } finally {
            sweeping.set(false);
        }
        if (reported != null && !reported.isEmpty() && reports.hasListeners()) {
            reports.report(reported, now, sizeBefore, bytesBefore, maximumSize, maximumBytes);
        }
    }

    private boolean overBound() {
        return records.size() > maximumSize || records.bytes() > maximumBytes;
    }

    /** Whether more removed records are still linked in the sweep queues than the queues should carry. */
    private boolean compactionDue() {
        return records.unlinkedRemoved() > Math.max(1_024, maximumSize / 2);
    }

    /** Whether there is work: a record due for its sweep, a scan due, a compaction due or a bound passed. */
    private boolean due(long now) {
        return now >= nextAbandonedScan || compactionDue() || overBound() || queues.anyDue(now);
    }

    /** Removes the records whose sweep time has come, from the heads of the queues. */
    private void sweepDue(long now) {
        for (MemoryRecord e = queues.pollDue(now); e != null; e = queues.pollDue(now)) {
            records.removeSwept(e);
        }
    }

    /** Removes claims whose lease passed more than the grace period ago: their owners are gone. */
    private void sweepAbandoned(long now) {
        nextAbandonedScan = plus(now, IN_PROGRESS_GRACE_MILLIS);
        for (MemoryRecord e : records.byKey().values()) {
            if (e.state == RecordState.IN_PROGRESS && now >= plus(e.leaseUntil, IN_PROGRESS_GRACE_MILLIS)) {
                synchronized (e) {
                    if (!e.removed && e.state == RecordState.IN_PROGRESS
                            && now >= plus(e.leaseUntil, IN_PROGRESS_GRACE_MILLIS)) {
                        records.removeUnderLock(e);
                    }
                }
            }
        }
    }

    /** Evicts finished records, the one due for its sweep first, until one percent below the bound passed. */
    private List<MemoryRecord> evict(long now, long size, long held) {
        long excessRecords = size > maximumSize ? size - (maximumSize - maximumSize / 100) : 0;
        long excessBytes = held > maximumBytes ? held - (maximumBytes - maximumBytes / 100) : 0;
        List<MemoryRecord> reported = new ArrayList<>();
        while (excessRecords > 0 || excessBytes > 0) {
            MemoryRecord e = queues.pollFirstDue();
            if (e == null) {
                break; // only records in progress are left: they are never evicted
            }
            if (records.removeSwept(e)) {
                excessRecords--;
                excessBytes -= e.estimatedBytes();
                if (e.countsAt(now)) {
                    reported.add(e);
                }
            }
        }
        return reported;
    }
}
