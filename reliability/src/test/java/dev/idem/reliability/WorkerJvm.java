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
import java.util.function.Predicate;

/**
 * A main class of the test's own class path in a JVM of its own. Its standard output is collected line by line on a
 * thread of its own, so the test waits for a line with a deadline; its standard error goes to a file under
 * {@code idem.test.dir} that failures name. Every wait has a deadline; the process can be stopped and continued
 * ({@link #freeze()}, {@link #thaw()}), killed, or told to exit.
 */
final class WorkerJvm implements AutoCloseable {
    /** Names the reader thread, the stderr file and failure messages. */
    final String name;
    private final Process process;
    private final Path errors;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private WorkerJvm(String name, Process process, Path errors) {
        this.name = name;
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
        }, "worker-output-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    static WorkerJvm start(Class<?> main, String... args) throws IOException {
        return start(main.getSimpleName(), main, args);
    }

    /**
     * Starts {@code main} with {@code args}; {@code name} names the reader thread, the stderr file and failures. The
     * 512 KiB thread stacks are what {@link ClockSkewWorker} (the deepest of the workers) was given; the others fit.
     */
    static WorkerJvm start(String name, Class<?> main, String... args) throws IOException {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "workers").toAbsolutePath();
        Files.createDirectories(dir);
        String prefix = name.equals(main.getSimpleName()) ? name : main.getSimpleName() + "-" + name;
        Path errors = Files.createTempFile(dir, prefix + "-", ".err");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new WorkerJvm(name, new ProcessBuilder(command).redirectError(errors.toFile()).start(), errors);
    }

    /** Waits until the worker has printed {@code line}; fails at the timeout or when its output ends first. */
    void await(String line, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (!lines.contains(line)) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && !lines.contains(line)) {
                    throw new AssertionError(name + ": no " + line + " within " + timeout + "; " + this);
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
                    throw new AssertionError(name + ": no " + prefix + "... within " + timeout + "; " + this);
                }
                TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    /** {@return the first line (from index {@code from} on) that matches, waiting for it until {@code timeout}} */
    String await(Predicate<String> matching, int from, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            int seen = from;
            while (true) {
                for (; seen < lines.size(); seen++) {
                    if (matching.test(lines.get(seen))) {
                        return lines.get(seen);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && seen == lines.size()) {
                    throw new AssertionError(name + ": no " + what + " within " + timeout + "; " + this);
                }
                TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    /** {@return how many lines so far: where a later {@link #await(Predicate, int, Duration, String)} starts} */
    int mark() {
        return lines.size();
    }

    /** SIGSTOP: the whole JVM stands still (as in a long GC pause or a frozen VM), heartbeat included. */
    void freeze() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** SIGCONT after {@link #freeze()}. */
    void thaw() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String which) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid())).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + which + " " + process.pid() + " (" + name + ") failed");
        }
    }

    /** {@return the worker's process id: the first part of its engine's owner, {@code pid/random}} */
    long pid() {
        return process.pid();
    }

    /** Kills the worker with SIGKILL ({@link Process#destroyForcibly()}) and waits (at most 30 s) until it is gone. */
    void kill() throws InterruptedException {
        if (!process.destroyForcibly().waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " outlived SIGKILL for 30 s; " + this);
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
            throw new AssertionError(name + " did not exit cleanly; " + this);
        }
        return List.copyOf(lines);
    }

    /** Sends {@code EXIT} and waits for {@code DONE} and a clean exit, as {@link #finish}. */
    void exit(Duration timeout) throws IOException, InterruptedException {
        send("EXIT");
        finish(timeout);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("-CONT"); // a stopped JVM heeds only SIGKILL; continue it so nothing is left stopped
            } catch (IOException | InterruptedException | IllegalStateException ignored) {
                // killed below either way
            }
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
