package dev.idem.core.internal;

import dev.idem.store.IdempotencyStore;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Renews the lease of every running execution once a third of it has passed, so long work (an LLM call of
 * minutes) is never taken over while its owner lives, while a crashed owner's lease still passes. A renewal refused
 * by fencing means the claim was taken over: that execution's beat stops and reports it once.
 *
 * <p>One sweep per engine serves every execution: starting and stopping a beat is adding to and removing from a
 * concurrent set, which keeps the cost of a short execution (the common case) to almost nothing. The sweep runs
 * every {@link #SWEEP_PERIOD}, so a lease of at least three periods is renewed in time.
 */
public final class LeaseHeartbeat implements AutoCloseable {
    /** How often the sweep looks for executions due for renewal. */
    static final Duration SWEEP_PERIOD = Duration.ofMillis(100);
    private static final System.Logger LOG = System.getLogger(LeaseHeartbeat.class.getName());

    /** Runs the sweep periodically; tests supply one they drive by hand. */
    public interface Scheduler {
        /** Runs {@code sweep} every {@code period} until the returned handle is run. */
        Runnable schedule(Runnable sweep, Duration period);

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

    private final Clock clock;
    private final Set<RunningBeat> running = ConcurrentHashMap.newKeySet();
    private final Scheduler scheduler;
    private final Runnable cancelSweep;

    LeaseHeartbeat(Clock clock, Scheduler scheduler) {
        this.clock = clock;
        this.scheduler = scheduler != null ? scheduler : daemonScheduler();
        this.cancelSweep = this.scheduler.schedule(this::sweep, SWEEP_PERIOD);
    }

    Beat start(IdempotencyStore store, String key, long token, Duration lease, LostLease onLost) {
        RunningBeat beat = new RunningBeat(store, key, token, lease, onLost, clock.millis());
        running.add(beat);
        return beat;
    }

    /** Renews every execution whose last renewal is a third of a lease old. */
    void sweep() {
        long now = clock.millis();
        for (RunningBeat beat : running) {
            if (now - beat.renewedAt >= beat.renewEveryMillis) {
                beat.renew(now);
            }
        }
    }

    @Override
    public void close() {
        cancelSweep.run();
        scheduler.shutdown();
    }

    private static Scheduler daemonScheduler() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "idem-lease-heartbeat");
            t.setDaemon(true);
            return t;
        });
        return new Scheduler() {
            @Override
            public Runnable schedule(Runnable sweep, Duration period) {
                long nanos = period.toNanos();
                ScheduledFuture<?> f = executor.scheduleWithFixedDelay(() -> {
                    try {
                        sweep.run();
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "lease heartbeat sweep failed; retrying at the next one", e);
                    }
                }, nanos, nanos, TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            }

            @Override
            public void shutdown() {
                executor.shutdownNow();
            }
        };
    }

    private final class RunningBeat implements Beat {
        private final IdempotencyStore store;
        private final String key;
        private final long token;
        private final Duration lease;
        private final long renewEveryMillis;
        private final LostLease onLost;
        private volatile long renewedAt;

        RunningBeat(IdempotencyStore store, String key, long token, Duration lease, LostLease onLost, long now) {
            this.store = store;
            this.key = key;
            this.token = token;
            this.lease = lease;
            this.renewEveryMillis = Math.max(1, lease.toMillis() / 3);
            this.onLost = onLost;
            this.renewedAt = now;
        }

        void renew(long now) {
            try {
                if (store.renew(key, token, lease)) {
                    renewedAt = now;
                } else {
                    stop();
                    onLost.lost(key, token);
                }
            } catch (RuntimeException e) {
                // A store blip: the next sweep tries again; the lease has two more thirds of slack.
                LOG.log(Level.DEBUG, "lease renewal of " + key + " failed; retrying at the next sweep", e);
            }
        }

        @Override
        public void stop() {
            running.remove(this);
        }
    }
}
