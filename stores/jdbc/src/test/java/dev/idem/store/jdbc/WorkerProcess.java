package dev.idem.store.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@link JdbcWorker} in a JVM of its own, started from the test's own class path. Its standard output is read line
 * by line on a thread of its own, so the test waits for a line with a deadline; its standard error goes to a file
 * under target/ that failures name.
 */
final class WorkerProcess implements AutoCloseable {
    private static final String END = new String("(end of output)");
    private final Process process;
    private final Path errors;
    private final BlockingQueue<String> unread = new LinkedBlockingQueue<>();
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private WorkerProcess(Process process, Path errors) {
        this.process = process;
        this.errors = errors;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                    unread.add(line);
                }
            } catch (IOException e) {
                // destroyed under the reader: the end of its output
            } finally {
                unread.add(END);
            }
        }, "worker-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code JdbcWorker mode args...}. */
    static WorkerProcess start(String mode, String... args) throws IOException {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "workers").toAbsolutePath();
        Files.createDirectories(dir);
        Path errors = Files.createTempFile(dir, mode + "-", ".err");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                "-cp", System.getProperty("java.class.path"), JdbcWorker.class.getName(), mode));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        return new WorkerProcess(process, errors);
    }

    /** Writes one line to the worker's standard input. */
    void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** The next unread line that satisfies {@code wanted}, skipping others; fails when none comes in time. */
    String next(Predicate<String> wanted, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = unread.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("no expected line from the worker within " + timeout + "; " + this);
            }
            if (line == END) {
                unread.add(END);
                throw new AssertionError("the worker's output ended before the expected line; " + this);
            }
            if (wanted.test(line)) {
                return line;
            }
        }
    }

    /** Waits for the worker to print {@code DONE} and exit 0; returns every line it printed. */
    List<String> finish(Duration timeout) throws Exception {
        next("DONE"::equals, timeout);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
            throw new AssertionError("the worker did not exit cleanly; " + this);
        }
        return List.copyOf(lines);
    }

    /** Kills the JVM at once (SIGKILL), as a crash would, and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                kill();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt(); // close() must not throw it; the caller's interrupt is kept
            }
        }
    }

    @Override
    public String toString() {
        String err;
        try {
            err = Files.readString(errors);
        } catch (IOException e) {
            err = "(unreadable: " + e + ")";
        }
        return "stderr (" + errors + "):\n" + (err.length() > 4000 ? err.substring(0, 4000) + "..." : err);
    }
}
