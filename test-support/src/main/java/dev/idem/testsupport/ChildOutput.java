package dev.idem.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A child process's standard output, read line by line on a daemon thread of its own as it comes, and the waits for
 * its lines. A test so waits for a line with a deadline instead of blocking in {@code readLine()} for as long as the
 * child stays silent: every wait has one, and fails with an {@link AssertionError} naming the child and showing what
 * {@code state} tells of it (its last output and its standard error, for {@link ChildJvm}).
 */
final class ChildOutput {
    private final String name;
    private final Supplier<String> state;
    private final Object lock = new Object();
    private final List<String> lines = new ArrayList<>(); // guarded by lock
    private boolean ended; // guarded by lock: the output reached its end (the child exited or was killed)
    private int cursor; // guarded by lock: where the next next() looks from

    /**
     * Starts reading {@code out}.
     *
     * @param out   the child's standard output
     * @param name  the child's name, for the reading thread and failures
     * @param state what failures show of the child; asked only when a wait fails
     */
    ChildOutput(InputStream out, String name, Supplier<String> state) {
        this.name = name;
        this.state = state;
        Thread reader = new Thread(() -> read(out), "child-jvm-output-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    private void read(InputStream out) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                synchronized (lock) {
                    lines.add(line);
                    lock.notifyAll();
                }
            }
        } catch (IOException destroyed) {
            // the process was killed under the reader: the end of its output
        } finally {
            synchronized (lock) {
                ended = true;
                lock.notifyAll();
            }
        }
    }

    /** As {@link ChildJvm#await(Predicate, int, Duration, String)}. */
    String await(Predicate<String> matching, int from, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            int seen = from;
            while (true) {
                for (; seen < lines.size(); seen++) {
                    if (matching.test(lines.get(seen))) {
                        cursor = seen + 1;
                        return lines.get(seen);
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended) {
                    throw new AssertionError(name + ": the output ended before " + what + "; " + state.get());
                }
                if (left <= 0) {
                    throw new AssertionError(name + ": no " + what + " within " + timeout + "; " + state.get());
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /** As {@link ChildJvm#next(Predicate, Duration)}. */
    String next(Predicate<String> wanted, Duration timeout) throws InterruptedException {
        int from;
        synchronized (lock) {
            from = cursor;
        }
        return await(wanted, from, timeout, "expected line");
    }

    /** As {@link ChildJvm#awaitLines(String, int, Duration)}. */
    List<String> awaitLines(String prefix, int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (true) {
                List<String> found = lines(prefix);
                if (found.size() >= count) {
                    return found;
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError(name + ": " + found.size() + " of " + count + " " + prefix + "... lines "
                            + (ended ? "before the output ended" : "within " + timeout) + "; " + state.get());
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /**
     * Waits for the end of the output, which follows the child's exit at once unless a grandchild holds the pipe.
     *
     * @param deadline the {@link System#nanoTime()} to wait until
     * @param timeout  the wait's length, for the failure
     * @throws AssertionError when the output has not ended by {@code deadline}
     */
    void awaitEnd(long deadline, Duration timeout) throws InterruptedException {
        synchronized (lock) {
            while (!ended) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(name + " exited, and its output did not end within " + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /** {@return how many lines were read so far} */
    int mark() {
        synchronized (lock) {
            return lines.size();
        }
    }

    /** {@return every line read so far} */
    List<String> lines() {
        synchronized (lock) {
            return List.copyOf(lines);
        }
    }

    /** {@return the lines read so far that start with {@code prefix}, without it} */
    List<String> lines(String prefix) {
        synchronized (lock) {
            return lines.stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).toList();
        }
    }
}
