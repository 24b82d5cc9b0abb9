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
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@link ClockSkewWorker} in a JVM of its own, started like {@link WorkerJvm} (the test's class path, its standard
 * error in a file under {@code idem.test.dir}), with what the clock-skew suite needs beyond it: waiting for a line
 * that matches (every wait has a deadline), reading every line so far, and stopping, continuing or killing the process.
 */
final class ClockSkewJvm implements AutoCloseable {
    final String name;
    private final Process process;
    private final Path errors;
    private final List<String> lines = new ArrayList<>();

    private ClockSkewJvm(String name, Process process, Path errors) {
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
        }, "skew-worker-output-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    static ClockSkewJvm start(String name, String... args) throws IOException {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "workers").toAbsolutePath();
        Files.createDirectories(dir);
        Path errors = Files.createTempFile(dir, "ClockSkewWorker-" + name + "-", ".err");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), ClockSkewWorker.class.getName(), "name=" + name));
        command.addAll(List.of(args));
        return new ClockSkewJvm(name, new ProcessBuilder(command).redirectError(errors.toFile()).start(), errors);
    }

    /** The first line (from {@code from} on) that matches, waiting for it until {@code timeout}. */
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

    /** The first line that starts with {@code prefix}, waiting for it until {@code timeout}. */
    String await(String prefix, Duration timeout) throws InterruptedException {
        return await(l -> l.startsWith(prefix), 0, timeout, "line starting '" + prefix + "'");
    }

    /** Every line so far. */
    List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** How many lines so far: where a later {@link #await(Predicate, int, Duration, String)} starts looking. */
    int mark() {
        synchronized (lines) {
            return lines.size();
        }
    }

    void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
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
            throw new IllegalStateException("kill " + which + " " + process.pid() + " failed");
        }
    }

    /** SIGKILL, and waits until the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " did not die within 30 s of SIGKILL");
        }
    }

    /** Sends {@code EXIT} and waits for {@code DONE} and a clean exit. */
    void exit(Duration timeout) throws IOException, InterruptedException {
        send("EXIT");
        await("DONE", timeout);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
            throw new AssertionError(name + " did not exit cleanly; " + this);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("-CONT"); // a frozen JVM ignores nothing but SIGKILL; continue it so nothing is left stopped
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
        List<String> all = lines();
        return "output:\n" + String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()))
                + "\nstderr (" + errors + "):\n" + (err.length() > 4000 ? err.substring(0, 4000) + "..." : err);
    }
}
