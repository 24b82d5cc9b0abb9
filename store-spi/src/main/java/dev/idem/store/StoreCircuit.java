package dev.idem.store;

import dev.idem.IdempotencyStoreUnreachableException;
import jakarta.annotation.Nonnull;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * A circuit breaker over a store's server: once the server proved unreachable, callers are refused at once instead of
 * each spending a connect timeout on it, and the server is tried again by one probe at a time, in the background,
 * until it answers.
 *
 * <p><b>States.</b> Closed: {@link #admit} lets every call through. {@link #open} (a store saw the server unreachable)
 * opens it: from then on {@code admit} throws {@link IdempotencyStoreUnreachableException} without touching the
 * server, carrying the last failure as its cause. Opening schedules a probe after the first back-off; a probe that
 * returns closes the circuit, a probe that throws schedules the next one after twice the back-off (up to the longest),
 * jittered down to half so processes that lost one server together do not probe it together. So the circuit closes
 * within about one back-off of the server coming back, whether calls come meanwhile or not. Calls admitted before
 * the circuit opened go on as they were; opening never interrupts anything.
 *
 * <p><b>At most one probe is scheduled or in flight</b> at any time, however many callers are refused meanwhile, and
 * none is started after {@link #close()}. A probe never runs on a caller's thread, so while the server is away only
 * the call that found it unreachable waits (its connect timeout); every later one fails within the cost of this check.
 *
 * <p>Thread-safe. The closed state costs {@code admit} one volatile read.
 */
public final class StoreCircuit implements AutoCloseable {
    /** The pause before the first probe after the circuit opened, unless configured. */
    public static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    /** The longest pause between two probes, unless configured. */
    public static final Duration LONGEST_BACKOFF = Duration.ofSeconds(5);

    /** Runs a probe after a pause, off the callers' threads. */
    @FunctionalInterface
    public interface ProbeScheduler {
        /**
         * Runs {@code probe} once, after {@code delay}, on a thread that is not a caller's.
         *
         * @param probe the probe
         * @param delay how long to wait first
         */
        void schedule(@Nonnull Runnable probe, @Nonnull Duration delay);
    }

    private final String store;
    private final UnaryOperator<String> subject;
    private final Runnable probe;
    private final long firstBackoffNanos;
    private final long longestBackoffNanos;
    private final LongSupplier nanoTime;
    private final ProbeScheduler scheduler;
    private volatile boolean open;
    // Guarded by this:
    private boolean closed;
    private long openedAt;
    private long backoffNanos;
    private Throwable lastFailure;

    /**
     * A circuit with the default back-off ({@link #FIRST_BACKOFF} doubling to {@link #LONGEST_BACKOFF}) whose probes
     * each run on a daemon thread of their own.
     *
     * @param store   what the store is, for messages ("redis store", "jdbc store")
     * @param subject how messages name a key ({@code key -> "scope " + scopeOf(key)}); called only to refuse
     * @param probe   tries the server once, with the store's own connect timeout; returns when the server answered
     *                and throws when it did not
     */
    public StoreCircuit(@Nonnull String store, @Nonnull UnaryOperator<String> subject, @Nonnull Runnable probe) {
        this(store, subject, probe, FIRST_BACKOFF, LONGEST_BACKOFF, System::nanoTime, StoreCircuit::onItsOwnThread);
    }

    /**
     * A circuit with its back-off, clock and probe scheduler given (tests drive all three).
     *
     * @param store          what the store is, for messages
     * @param subject        how messages name a key
     * @param probe          tries the server once; returns when it answered and throws when it did not
     * @param firstBackoff   the pause before the first probe, positive
     * @param longestBackoff the longest pause between probes, at least {@code firstBackoff}
     * @param nanoTime       the time, in nanoseconds, as {@link System#nanoTime()} gives it (for messages)
     * @param scheduler      runs each probe after its pause
     */
    public StoreCircuit(@Nonnull String store, @Nonnull UnaryOperator<String> subject, @Nonnull Runnable probe,
                        @Nonnull Duration firstBackoff, @Nonnull Duration longestBackoff,
                        @Nonnull LongSupplier nanoTime, @Nonnull ProbeScheduler scheduler) {
        this.store = Objects.requireNonNull(store, "store");
        this.subject = Objects.requireNonNull(subject, "subject");
        this.probe = Objects.requireNonNull(probe, "probe");
        if (firstBackoff.isNegative() || firstBackoff.isZero() || longestBackoff.compareTo(firstBackoff) < 0) {
            throw new IllegalArgumentException("the back-off must be positive and the longest at least the first: "
                    + firstBackoff + ", " + longestBackoff);
        }
        this.firstBackoffNanos = firstBackoff.toNanos();
        this.longestBackoffNanos = longestBackoff.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /**
     * Lets a call reach the server, or refuses it while the server is unreachable.
     *
     * @param operation what the caller is about to do ("claim"), for the refusal's message
     * @param key       the key it is about to do it to, named in the message as the subject function says
     * @throws IdempotencyStoreUnreachableException while the circuit is open; the server was not touched
     */
    public void admit(@Nonnull String operation, @Nonnull String key) {
        if (open) {
            refuse(operation, key);
        }
    }

    /** {@return whether calls are refused now: the server proved unreachable and no probe has reached it since} */
    public boolean isOpen() {
        return open;
    }

    /**
     * Opens the circuit: the server proved unreachable (a connection could not be opened, or broke), and schedules
     * the first probe. Opening an open circuit only records the newer failure.
     *
     * @param failure why, the cause of every refusal from now on
     */
    public synchronized void open(@Nonnull Throwable failure) {
        lastFailure = Objects.requireNonNull(failure, "failure");
        if (open || closed) {
            return;
        }
        openedAt = nanoTime.getAsLong();
        backoffNanos = firstBackoffNanos;
        open = true;
        schedule(Duration.ofNanos(backoffNanos));
    }

    /** Schedules no probe from now on; a probe in flight finishes, and its answer no longer changes the circuit. */
    @Override
    public synchronized void close() {
        closed = true;
    }

    private void refuse(String operation, String key) {
        long ago;
        Throwable cause;
        synchronized (this) {
            if (!open) {
                return; // a probe closed it meanwhile
            }
            ago = (nanoTime.getAsLong() - openedAt) / 1_000_000;
            cause = lastFailure;
        }
        throw new IdempotencyStoreUnreachableException(store + ": " + operation + " of " + subject.apply(key)
                + " refused without trying: the store has been unreachable for " + ago + " ms and is tried again in"
                + " the background (last failure: " + cause.getMessage() + ")", cause);
    }

    /** Schedules the one probe; the caller holds the lock. */
    private void schedule(Duration delay) {
        try {
            scheduler.schedule(this::probe, delay);
        } catch (RuntimeException e) { // refused: the circuit stays open, refusing with this as the reason
            lastFailure = e;
        }
    }

    private void probe() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        try {
            probe.run();
        } catch (RuntimeException e) {
            probed(e); // the server is still away: the refusals carry why
            return;
        } catch (Error e) {
            probed(e); // the circuit must not stop probing for good
            throw e;
        }
        probed(null);
    }

    private synchronized void probed(Throwable failure) {
        if (closed) {
            return;
        }
        if (failure == null) {
            open = false;
            return;
        }
        lastFailure = failure;
        backoffNanos = Math.min(longestBackoffNanos, backoffNanos * 2);
        long half = backoffNanos / 2;
        schedule(Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(half + 1)));
    }

    private static void onItsOwnThread(Runnable probe, Duration delay) {
        Executor later = CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS, task -> {
            Thread t = new Thread(task, "idem-store-probe");
            t.setDaemon(true);
            t.start();
        });
        later.execute(probe);
    }
}
