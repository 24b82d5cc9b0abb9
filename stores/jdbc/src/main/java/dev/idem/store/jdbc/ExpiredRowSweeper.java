package dev.idem.store.jdbc;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Deletes the store's expired rows on a daemon thread of its own, every {@code interval}, never on a caller's path.
 * Each run deletes batch after batch (each one statement deleting at most the batch size) until a batch comes back
 * short, or {@value #MAX_BATCHES_PER_RUN} batches have run, so one run never holds the database for long and a table
 * that expires faster than it is swept is caught up over several runs. A failed run is logged and the next one runs
 * on schedule: a database that is down costs the sweeper one warning per interval and nothing else.
 */
final class ExpiredRowSweeper implements AutoCloseable {
    static final int MAX_BATCHES_PER_RUN = 1_000;
    private static final System.Logger LOG = System.getLogger("dev.idem.store.jdbc");

    private final ScheduledExecutorService executor;
    private final IntSupplier deleteBatch;
    private final int batchSize;
    private final String table;
    private volatile Thread thread;

    /**
     * @param deleteBatch deletes one batch of expired rows and returns how many it deleted
     * @param batchSize   the most rows one batch deletes
     */
    ExpiredRowSweeper(String table, Duration interval, int batchSize, IntSupplier deleteBatch) {
        this.table = table;
        this.batchSize = batchSize;
        this.deleteBatch = deleteBatch;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-jdbc-sweeper-" + table);
            t.setDaemon(true);
            thread = t;
            return t;
        });
        long millis = Math.max(1, interval.toMillis());
        executor.scheduleWithFixedDelay(this::sweep, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** One run: batches until one is short. Returns how many rows it deleted. */
    long sweep() {
        long deleted = 0;
        try {
            for (int batch = 0; batch < MAX_BATCHES_PER_RUN && !Thread.currentThread().isInterrupted(); batch++) {
                int n = deleteBatch.getAsInt();
                deleted += n;
                if (n < batchSize) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "jdbc store: sweeping expired rows of table " + table + " failed after deleting "
                    + deleted + "; the next sweep runs on schedule: " + e.getMessage());
        }
        return deleted;
    }

    /** The sweeper's thread once it started, for tests. */
    Thread thread() {
        return thread;
    }

    /** Stops the sweeper: a run in progress is interrupted and waited for (at most 10 seconds). */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.log(Level.WARNING, "jdbc store: the sweeper of table " + table + " did not stop within 10s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
