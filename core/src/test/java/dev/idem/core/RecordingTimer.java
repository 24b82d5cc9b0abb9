package dev.idem.core;

import dev.idem.core.internal.retry.RetryTimer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Pauses between attempts without waiting: a sleep is recorded, moves the engine's clock by the pause and beats
 * the leases (as the heartbeat would while time passes), then runs the test's hook; a scheduled attempt is queued
 * for the test to run on a thread of its choice.
 */
final class RecordingTimer implements RetryTimer {
    /** Set once the fixture that uses this timer exists (the fixture's settings need the timer first). */
    volatile EngineFixture fx;
    final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    final List<Duration> scheduled = new CopyOnWriteArrayList<>();
    final BlockingQueue<Runnable> due = new LinkedBlockingQueue<>();
    volatile Runnable duringSleep = () -> {
    };

    /** Draws the top of every jitter range, so each pause is exactly its bound: min(cap, base * 2^(n-1)). */
    static final java.util.random.RandomGenerator HIGHEST = new java.util.random.RandomGenerator() {
        @Override
        public long nextLong() {
            return Long.MAX_VALUE;
        }

        @Override
        public long nextLong(long bound) {
            return bound - 1;
        }
    };

    @Override
    public boolean sleep(Duration pause) {
        sleeps.add(pause);
        fx.clock.advance(pause);
        fx.heartbeat.beatAll();
        duringSleep.run();
        return true;
    }

    @Override
    public void schedule(Duration pause, Runnable task) {
        scheduled.add(pause);
        fx.clock.advance(pause);
        fx.heartbeat.beatAll();
        due.add(task);
    }

    /** Runs the next scheduled attempt on a thread of its own, as the engine's timer would. */
    void runNextScheduled() throws InterruptedException {
        Runnable task = due.poll(10, TimeUnit.SECONDS);
        if (task == null) {
            throw new AssertionError("no attempt was scheduled");
        }
        Thread runner = new Thread(task, "test-retry-timer");
        runner.start();
        runner.join(TimeUnit.SECONDS.toMillis(10));
    }
}
