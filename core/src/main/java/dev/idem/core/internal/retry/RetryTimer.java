package dev.idem.core.internal.retry;

import java.time.Duration;

/**
 * Waits between attempts: by sleeping, for methods that return a value, or by scheduling, for methods that return
 * a {@code CompletionStage}, which never block a thread. Tests supply one that records the pauses and moves a clock
 * instead of waiting.
 */
public interface RetryTimer {

    /** Sleeps for {@code pause}; false (with the interrupt flag restored) when interrupted. */
    boolean sleep(Duration pause);

    /**
     * Runs {@code task} once {@code pause} has passed, on a thread that is neither the caller's nor the timer's own
     * (the timer only fires; the task may take a while).
     */
    void schedule(Duration pause, Runnable task);
}
