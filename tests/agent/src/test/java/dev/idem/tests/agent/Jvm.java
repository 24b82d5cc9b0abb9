package dev.idem.tests.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** A JDK the tests start applications with, and how to start one. */
record Jvm(Path home, int major) {

    /** The JDK running the tests, and one JDK of every other major version installed beside it. */
    static Stream<Jvm> available() {
        Map<Integer, Jvm> byMajor = new TreeMap<>();
        Jvm current = of(Paths.get(System.getProperty("java.home")));
        byMajor.put(current.major, current);
        Path jvms = current.home.getParent();
        if (jvms != null && Files.isDirectory(jvms)) {
            try (Stream<Path> homes = Files.list(jvms)) {
                homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && Files.isRegularFile(h.resolve("release")))
                        .map(Jvm::of)
                        .forEach(j -> byMajor.putIfAbsent(j.major, j));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return byMajor.values().stream();
    }

    private static Jvm of(Path home) {
        Properties release = new Properties();
        try (InputStream in = Files.newInputStream(home.resolve("release"))) {
            release.load(in);
        } catch (IOException e) {
            return new Jvm(home, Runtime.version().feature());
        }
        String version = release.getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
        return new Jvm(home, Integer.parseInt(version.split("[.+-]")[0]));
    }

    Path java() {
        return home.resolve("bin/java");
    }

    @Override
    public String toString() {
        return "JDK " + major;
    }

    /** Starts {@code mainClass} with the given JVM options and class path; the caller reads and waits. */
    Process start(List<String> options, List<String> classPath, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(java().toString());
        command.addAll(options);
        command.add("-cp");
        command.add(String.join(java.io.File.pathSeparator, classPath));
        command.add(mainClass);
        command.addAll(Arrays.asList(args));
        try {
            return new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs to the end (at most a minute) and returns what it printed. */
    Run run(List<String> options, List<String> classPath, String mainClass, String... args) throws Exception {
        Process process = start(options, classPath, mainClass, args);
        process.getOutputStream().close();
        CompletableFuture<String> out = read(process.getInputStream());
        CompletableFuture<String> err = read(process.getErrorStream());
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the application did not finish within a minute; stderr: " + err.getNow(""));
        }
        return new Run(process.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    }

    static CompletableFuture<String> read(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /**
     * A child's output read line by line on a thread of its own, so that a test waits for a line with a deadline
     * instead of blocking in {@code readLine()} for as long as the child stays silent.
     */
    static final class Lines {
        private static final String END = new String("(end of stream)");
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Lines(InputStream stream, String name) {
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // the process was destroyed under the reader: the end of its output
                } finally {
                    lines.add(END);
                }
            }, name);
            reader.setDaemon(true);
            reader.start();
        }

        /**
         * The next line that satisfies {@code wanted}, skipping the others.
         *
         * @throws AssertionError when the output ends, or no such line comes within {@code timeout}
         */
        String next(Predicate<String> wanted, Duration timeout, Supplier<String> context) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("no expected line within " + timeout + "; " + context.get());
                }
                if (line == END) {
                    lines.add(END);
                    throw new AssertionError("the output ended before the expected line; " + context.get());
                }
                if (wanted.test(line)) {
                    return line;
                }
            }
        }
    }

    /** What one run printed. */
    record Run(int exitCode, String out, String err) {
        /** The value of the {@code key=value} line {@code key}, or null. */
        String value(String key) {
            return out.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                    .findFirst().orElse(null);
        }

        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }
}
