package dev.idem.reliability;

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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A main class of the test's own class path in a JVM of its own. Its standard output is collected line by line on a
 * thread of its own, so the test waits for a line with a deadline; its standard error goes to a file under
 * {@code idem.test.dir} that failures name.
 */
final class WorkerJvm implements AutoCloseable {
    private final Process process;
    private final Path errors;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private WorkerJvm(Process process, Path errors) {
        this.process = process;
        this.errors = errors;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException ended) {
                // the process was killed under the reader
            }
        }, "worker-output");
        reader.setDaemon(true);
        reader.start();
    }

    static WorkerJvm start(Class<?> main, String... args) throws IOException {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "workers").toAbsolutePath();
        Files.createDirectories(dir);
        Path errors = Files.createTempFile(dir, main.getSimpleName() + "-", ".err");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx128m", "-Xss256k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new WorkerJvm(new ProcessBuilder(command).redirectError(errors.toFile()).start(), errors);
    }

    /** Waits until the worker has printed {@code line}; fails at the timeout or when its output ends first. */
    void await(String line, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (!lines.contains(line)) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && !lines.contains(line)) {
                    throw new AssertionError("no " + line + " from the worker within " + timeout + "; " + this);
                }
                TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    /** Waits until the worker has printed a line starting with {@code prefix} and returns it; fails as {@link #await}. */
    String awaitPrefix(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                for (String line : lines) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive()) {
                    throw new AssertionError("no " + prefix + "... from the worker within " + timeout + "; " + this);
                }
                TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    /** {@return the worker's process id: the first part of its engine's owner, {@code pid/random}} */
    long pid() {
        return process.pid();
    }

    /** Kills the worker with SIGKILL ({@link Process#destroyForcibly()}) and waits (at most 30 s) until it is gone. */
    void kill() throws InterruptedException {
        if (!process.destroyForcibly().waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the worker outlived SIGKILL for 30 s; " + this);
        }
    }

    /** {@return every line the worker printed so far} */
    List<String> lines() {
        return List.copyOf(lines);
    }

    void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Waits for {@code DONE} and a clean exit; returns every line the worker printed. */
    List<String> finish(Duration timeout) throws InterruptedException {
        await("DONE", timeout);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
            throw new AssertionError("the worker did not exit cleanly; " + this);
        }
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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
        return "output:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()))
                + "\nstderr (" + errors + "):\n" + (err.length() > 4000 ? err.substring(0, 4000) + "..." : err);
    }
}
