package dev.idem.core.internal;

import dev.idem.store.IdempotencyStore;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Renews the lease of every running execution every lease/3, so long work (an LLM call of minutes) is never taken
 * over while its owner lives, while a crashed owner's lease still passes. A renewal refused by fencing means the
 * claim was taken over: the beat stops and reports it once.
 */
public final class LeaseHeartbeat implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeaseHeartbeat.class.getName());

    /** Runs beats periodically; tests supply one they can drive by hand. */
    public interface Scheduler {
        /** Runs {@code beat} every {@code period} until the returned handle is run. */
        Runnable schedule(Runnable beat, Duration period);

        default void shutdown() {
        }
    }

    /** One execution's beat. */
    public interface Beat {
        /** Stops renewing; idempotent. */
        void stop();
    }

    /** Called once when a renewal is refused (the claim was taken over). */
    public interface LostLease {
        void lost(String key, long fencingToken);
    }

    private final Scheduler scheduler;

    LeaseHeartbeat(Scheduler scheduler) {
        this.scheduler = scheduler != null ? scheduler : daemonScheduler();
    }

    Beat start(IdempotencyStore store, String key, long token, Duration lease, LostLease onLost) {
        Duration period = lease.dividedBy(3);
        if (period.isZero()) {
            period = Duration.ofMillis(1);
        }
        RunningBeat beat = new RunningBeat(store, key, token, lease, onLost);
        beat.cancel = scheduler.schedule(beat, period);
        return beat;
    }

    @Override
    public void close() {
        scheduler.shutdown();
    }

    private static Scheduler daemonScheduler() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "idem-lease-heartbeat");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return new Scheduler() {
            @Override
            public Runnable schedule(Runnable beat, Duration period) {
                long nanos = period.toNanos();
                ScheduledFuture<?> f = executor.scheduleAtFixedRate(beat, nanos, nanos, TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            }

            @Override
            public void shutdown() {
                executor.shutdownNow();
            }
        };
    }

    private static final class RunningBeat implements Runnable, Beat {
        private final IdempotencyStore store;
        private final String key;
        private final long token;
        private final Duration lease;
        private final LostLease onLost;
        private volatile boolean stopped;
        private volatile Runnable cancel;

        RunningBeat(IdempotencyStore store, String key, long token, Duration lease, LostLease onLost) {
            this.store = store;
            this.key = key;
            this.token = token;
            this.lease = lease;
            this.onLost = onLost;
        }

        @Override
        public void run() {
            if (stopped) {
                return;
            }
            try {
                if (!store.renew(key, token, lease)) {
                    stop();
                    onLost.lost(key, token);
                }
            } catch (RuntimeException e) {
                // A store blip: the next beat tries again; the lease has two more periods of slack.
                LOG.log(Level.DEBUG, "lease renewal of " + key + " failed; retrying at the next beat", e);
            }
        }

        @Override
        public void stop() {
            stopped = true;
            Runnable c = cancel;
            if (c != null) {
                c.run();
            }
        }
    }
}
