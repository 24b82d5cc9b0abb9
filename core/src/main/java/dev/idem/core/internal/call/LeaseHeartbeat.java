package dev.idem.core.internal.call;

import dev.idem.store.IdempotencyStore;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews the lease of every running execution once a third of it has passed, so long work (an LLM call of
 * minutes) is never taken over while its owner lives, while a crashed owner's lease still passes. A renewal refused
 * by fencing means the claim was taken over: that execution's beat stops and reports it once.
 *
 * <h2>Cost</h2>
 * One sweep per engine serves every execution: starting and stopping a beat is linking it into and out of one of a
 * few lists (by a random stripe, so threads rarely meet on a lock), which keeps the cost of a short execution (the
 * common case) to one small object and two uncontended locks. The sweep runs every {@link #SWEEP_PERIOD}, so a lease
 * of at least three periods is renewed in time.
 *
 * <h2>A slow store delays no one else</h2>
 * The sweep only decides which beats are due; the renewals themselves run on a small pool, at most one in flight
 * per beat. A renewal stuck on one key (a lock, a slow replica) therefore holds up neither the sweep nor the other
 * executions' renewals, and a beat never piles up renewals behind a slow one.
 *
 * <h2>Stopped is not lost</h2>
 * A renewal can be in flight while its execution finishes; the store then refuses it, because the record is no
 * longer in progress. That is not a lost lease: a refusal is reported only when the beat was not stopped. The
 * execution stops its beat before it completes or releases the claim, so a refusal caused by its own completion
 * always finds the beat stopped.
 */
public final class LeaseHeartbeat implements AutoCloseable {
    /** How often the sweep looks for executions due for renewal. */
    static final Duration SWEEP_PERIOD = Duration.ofMillis(100);
    /** Renewals that may be in flight at once, each for another execution. */
    static final int RENEWAL_THREADS = 4;
    private static final System.Logger LOG = System.getLogger(LeaseHeartbeat.class.getName());

    /** Runs the sweep periodically; tests supply one they drive by hand. */
    public interface Scheduler {
        /** Runs {@code sweep} every {@code period} until the returned handle is run. */
        Runnable schedule(Runnable sweep, Duration period);

        /**
         * Where renewals run: by default on the sweeping thread, which suits a sweep a test drives by hand. The
         * engine's own scheduler (no scheduler given) runs them on a pool of {@link #RENEWAL_THREADS} daemon
         * threads instead.
         */
        default Executor renewals() {
            return Runnable::run;
        }

        default void shutdown() {
        }
    }

    /** One execution's beat. */
    public interface Beat {
        /** Stops renewing; idempotent. Once it returns, no refusal of this beat's renewals is reported. */
        void stop();
    }

    /** Told once per execution when a renewal is refused (the claim was taken over). */
    public interface LostLease {
        /**
         * @param operation    the operation the execution belongs to, as given to {@link #start}
         * @param key          the execution's key
         * @param fencingToken the execution's (now stale) token
         */
        void lost(String operation, String key, long fencingToken);
    }

    /** A field updater rather than an AtomicBoolean per beat: one object fewer on the path of every execution. */
    private static final AtomicIntegerFieldUpdater<RunningBeat> IN_FLIGHT =
            AtomicIntegerFieldUpdater.newUpdater(RunningBeat.class, "inFlight");

    private final Clock clock;
    /** The running beats, in lists of their own rather than a concurrent set: no node object per execution. */
    private final Stripe[] running;
    private final LostLease onLost;
    /**
     * Where renewals run; null until the sweep is scheduled. Written under {@link #lifecycle} before the sweep is
     * scheduled, so a sweep always sees it.
     */
    private volatile Executor renewals;
    /** Guards the sweep's threads: they are created once, by the first beat, and never after {@link #close}. */
    private final Object lifecycle = new Object();
    private Scheduler scheduler;
    private Runnable cancelSweep;
    private ExecutorService ownPool;
    private boolean closed;

    /**
     * @param scheduler runs the sweep from now on, or null for the heartbeat's own daemon thread and renewal pool,
     *                  which are created when the first beat starts (an engine that never runs a call starts no
     *                  thread)
     * @param onLost    told when an execution's renewal is refused; one for all executions, so starting a beat
     *                  allocates no callback
     */
    public LeaseHeartbeat(Clock clock, Scheduler scheduler, LostLease onLost) {
        this.clock = clock;
        this.onLost = onLost;
        int stripes = Integer.highestOneBit(Math.min(64, Math.max(1, Runtime.getRuntime().availableProcessors())));
        this.running = new Stripe[stripes];
        for (int i = 0; i < stripes; i++) {
            running[i] = new Stripe(this);
        }
        if (scheduler != null) {
            synchronized (lifecycle) {
                scheduleSweep(scheduler, scheduler.renewals(), null);
            }
        }
    }

    Beat start(IdempotencyStore store, String operation, String key, long token, Duration lease) {
        return start(new RunningBeat(store, operation, key, token, lease));
    }

    /**
     * Starts {@code beat}, made by the caller: an execution's {@link ExecutionContext} is its beat, so that an
     * execution costs one object for both.
     */
    <B extends RunningBeat> B start(B beat) {
        if (renewals == null) {
            startOwnSweep();
        }
        Stripe stripe = running[ThreadLocalRandom.current().nextInt() & (running.length - 1)];
        RunningBeat started = beat;
        started.renewedAt = clock.millis();
        started.stripe = stripe;
        stripe.link(started);
        return beat;
    }

    /** Starts a renewal for every execution whose last renewal is a third of a lease old and none is in flight. */
    void sweep() {
        Executor renewals = this.renewals;
        long now = clock.millis();
        List<RunningBeat> due = new ArrayList<>();
        for (Stripe stripe : running) {
            stripe.collectDue(now, due); // renewals start outside the stripe's lock: they may run on this thread
        }
        for (RunningBeat beat : due) {
            try {
                renewals.execute(() -> beat.renew(now));
            } catch (RejectedExecutionException e) {
                beat.inFlight = 0; // closing: nothing more to renew
            }
        }
    }

    /** Stops the sweep and the threads it started, if any; beats started afterwards are never renewed. */
    @Override
    public void close() {
        synchronized (lifecycle) {
            closed = true;
            if (cancelSweep != null) {
                cancelSweep.run();
                scheduler.shutdown();
            }
            if (ownPool != null) {
                ownPool.shutdownNow();
            }
        }
    }

    /** Creates the heartbeat's own sweeping thread and renewal pool, once, unless it was closed. */
    private void startOwnSweep() {
        synchronized (lifecycle) {
            if (renewals == null && !closed) {
                ExecutorService pool = renewalPool();
                scheduleSweep(daemonScheduler(), pool, pool);
            }
        }
    }

    /** Called under {@link #lifecycle}. */
    private void scheduleSweep(Scheduler scheduler, Executor renewals, ExecutorService ownPool) {
        this.scheduler = scheduler;
        this.ownPool = ownPool;
        this.renewals = renewals;
        this.cancelSweep = scheduler.schedule(this::sweep, SWEEP_PERIOD);
    }

    private static ExecutorService renewalPool() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(RENEWAL_THREADS, RENEWAL_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "idem-lease-renewal-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true); // an engine with nothing running keeps no renewal thread
        return pool;
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

    /**
     * One list of running beats, doubly linked through the beats themselves behind a sentinel, under its own lock.
     */
    static final class Stripe {
        final LeaseHeartbeat heartbeat;
        private final RunningBeat sentinel = new RunningBeat(null, null, null, 0, Duration.ofMillis(3));

        Stripe(LeaseHeartbeat heartbeat) {
            this.heartbeat = heartbeat;
            sentinel.previous = sentinel;
            sentinel.next = sentinel;
        }

        synchronized void link(RunningBeat beat) {
            beat.previous = sentinel.previous;
            beat.next = sentinel;
            sentinel.previous.next = beat;
            sentinel.previous = beat;
        }

        synchronized void unlink(RunningBeat beat) {
            if (beat.next != null) { // stopping twice unlinks once
                beat.previous.next = beat.next;
                beat.next.previous = beat.previous;
                beat.previous = null;
                beat.next = null;
            }
        }

        /** Adds to {@code due} the beats of this list due for renewal, marking a renewal of each in flight. */
        synchronized void collectDue(long now, List<RunningBeat> due) {
            for (RunningBeat beat = sentinel.next; beat != sentinel; beat = beat.next) {
                if (now - beat.renewedAt >= Math.max(1, beat.lease.toMillis() / 3)
                        && IN_FLIGHT.compareAndSet(beat, 0, 1)) {
                    due.add(beat);
                }
            }
        }
    }

    /**
     * One execution's beat: started by {@link #start}, which links it into a stripe, and stopped by its
     * execution. Extended by {@link ExecutionContext}.
     */
    static class RunningBeat implements Beat {
        /** The list it is linked into, set when started; null for one never started. */
        private Stripe stripe;
        private final IdempotencyStore store;
        private final String key;
        private final long token;
        private final Duration lease;
        private final String operation;
        /** The neighbours in the stripe's list, guarded by the stripe; null once unlinked. */
        private RunningBeat previous;
        private RunningBeat next;
        /** 1 while a renewal of this beat is queued or running: never more than one (see {@link #IN_FLIGHT}). */
        private volatile int inFlight;
        private volatile long renewedAt;
        private volatile boolean stopped;

        RunningBeat(IdempotencyStore store, String operation, String key, long token, Duration lease) {
            this.store = store;
            this.operation = operation;
            this.key = key;
            this.token = token;
            this.lease = lease;
        }

        /** {@return the execution's key} */
        public String key() {
            return key;
        }

        /** {@return the execution's fencing token} */
        public long fencingToken() {
            return token;
        }

        void renew(long now) {
            try {
                if (stopped) {
                    return;
                }
                if (store.renew(key, token, lease)) {
                    renewedAt = now;
                } else if (!stopped) { // refused while still running: taken over
                    stop();
                    stripe.heartbeat.onLost.lost(operation, key, token);
                }
            } catch (RuntimeException e) {
                // A store blip: the next sweep tries again; the lease has two more thirds of slack.
                LOG.log(Level.DEBUG, "lease renewal of " + key + " failed; retrying at the next sweep", e);
            } finally {
                inFlight = 0;
            }
        }

        @Override
        public final void stop() {
            stopped = true;
            Stripe s = stripe;
            if (s != null) {
                s.unlink(this);
            }
        }
    }
}
