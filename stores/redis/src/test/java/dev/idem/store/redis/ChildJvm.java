package dev.idem.store.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM running a main class from the test's own class path, whose output lines the test reads as they
 * come. Its standard error goes to a file under {@code idem.test.dir}.
 */
final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private final Writer in;

    private ChildJvm(Process process) {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException ended) {
                // the process was killed
            }
        }, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(Class<?> main, String... args) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path stderr = Path.of(System.getProperty("idem.test.dir", "target"), "child-" + main.getSimpleName() + "-"
                + System.nanoTime() + ".err").toAbsolutePath();
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx128m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectError(stderr.toFile()).start());
    }

    /** Waits until the process has printed {@code count} lines starting with {@code prefix}; false at the timeout. */
    boolean awaitLines(String prefix, int count, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lines) {
            while (lines(prefix).size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && !reader.isAlive() && lines(prefix).size() < count) {
                    return lines(prefix).size() >= count;
                }
                TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return true;
        }
    }

    /** The lines printed so far that start with {@code prefix}, without it. */
    List<String> lines(String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).toList();
    }

    void send(String line) throws IOException {
        in.write(line + "\n");
        in.flush();
    }

    /** Waits for the process to exit, and for its last lines; false when it is still running at the timeout. */
    boolean awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
        if (!process.waitFor(timeout, unit)) {
            return false;
        }
        reader.join(unit.toMillis(timeout));
        return true;
    }

    /** Kills the process at once, as a crash would, and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    String describe() {
        return "exit " + (process.isAlive() ? "(running)" : process.exitValue()) + ", output:\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
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
}
