package dev.idem.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A main class in a JVM of its own, as a test starts it to see what separate processes do (share a store, crash,
 * stand still, take an agent). Built by {@link #of(Class)}: main class, class path (the test's own unless given),
 * JVM options, system properties, a java agent, arguments, and how long {@link Builder#run()} may take.
 *
 * <p>Its standard output is read line by line on a thread of its own as it comes ({@link ChildOutput}), so a test
 * waits for a line with a deadline instead of blocking in {@code readLine()} for as long as the child stays silent;
 * every wait here has a deadline and fails with an {@link AssertionError} that shows the child's last output and its
 * standard error. The standard error goes to a file under {@code idem.test.dir} (default {@code target}),
 * {@code workers/}, which the failures name. {@link #close()} kills the child if it is still running, so a test that fails leaves no process.
 */
public final class ChildJvm implements AutoCloseable {
    private static final int SHOWN_LINES = 40;
    private static final int SHOWN_ERROR_CHARS = 4000;

    private final String name;
    private final Process process;
    private final Path errors;
    private final ChildOutput output;
    private volatile boolean frozen;

    private ChildJvm(String name, Process process, Path errors) {
        this.name = name;
        this.process = process;
        this.errors = errors;
        this.output = new ChildOutput(process.getInputStream(), name, this::toString);
    }

    /**
     * {@return a builder of a child JVM running {@code main}, from this JVM's class path unless told otherwise}
     *
     * @param main the class whose {@code main} the child runs
     */
    public static Builder of(Class<?> main) {
        return new Builder(main.getName(), main.getSimpleName());
    }

    /**
     * {@return a builder of a child JVM running the named main class, which need not be on this JVM's class path}
     *
     * @param mainClass the binary name of the class whose {@code main} the child runs
     */
    public static Builder of(String mainClass) {
        return new Builder(mainClass, mainClass.substring(mainClass.lastIndexOf('.') + 1));
    }

    /**
     * Waits for the first line, at index {@code from} or later, that {@code matching} accepts.
     *
     * @param matching the line wanted
     * @param from the index to look from ({@link #mark()} taken before the action that prints it)
     * @param timeout how long to wait
     * @param what names the line in the failure
     * @return the line
     * @throws AssertionError when no such line comes within {@code timeout}, or the output ends first
     * @throws InterruptedException when interrupted while waiting
     */
    public String await(Predicate<String> matching, int from, Duration timeout, String what)
            throws InterruptedException {
        return output.await(matching, from, timeout, what);
    }

    /**
     * Waits until the child has printed exactly {@code line} (at any time since it started).
     *
     * @param line the line wanted
     * @param timeout how long to wait
     * @throws AssertionError as {@link #await(Predicate, int, Duration, String)}
     * @throws InterruptedException when interrupted while waiting
     */
    public void await(String line, Duration timeout) throws InterruptedException {
        await(line::equals, 0, timeout, line);
    }

    /**
     * {@return the first line the child printed that starts with {@code prefix}, waiting for it until
     * {@code timeout}}
     *
     * @param prefix how the line starts
     * @param timeout how long to wait
     * @throws AssertionError as {@link #await(Predicate, int, Duration, String)}
     * @throws InterruptedException when interrupted while waiting
     */
    public String awaitPrefix(String prefix, Duration timeout) throws InterruptedException {
        return await(l -> l.startsWith(prefix), 0, timeout, prefix + "...");
    }

    /**
     * {@return the next line {@code wanted} accepts after the line the previous wait returned} Reads the output as a
     * sequence: lines between are skipped.
     *
     * @param wanted the line wanted
     * @param timeout how long to wait
     * @throws AssertionError as {@link #await(Predicate, int, Duration, String)}
     * @throws InterruptedException when interrupted while waiting
     */
    public String next(Predicate<String> wanted, Duration timeout) throws InterruptedException {
        return output.next(wanted, timeout);
    }

    /**
     * Waits until the child has printed {@code count} lines starting with {@code prefix}.
     *
     * @param prefix how the lines start
     * @param count how many are wanted
     * @param timeout how long to wait
     * @return those lines so far, without the prefix (at least {@code count})
     * @throws AssertionError when fewer came within {@code timeout} or before the output ended
     * @throws InterruptedException when interrupted while waiting
     */
    public List<String> awaitLines(String prefix, int count, Duration timeout) throws InterruptedException {
        return output.awaitLines(prefix, count, timeout);
    }

    /** {@return how many lines the child printed so far: where a later wait for what comes next starts} */
    public int mark() {
        return output.mark();
    }

    /** {@return every line the child printed so far} */
    public List<String> lines() {
        return output.lines();
    }

    /**
     * {@return the lines printed so far that start with {@code prefix}, without it}
     *
     * @param prefix how the lines start
     */
    public List<String> lines(String prefix) {
        return output.lines(prefix);
    }

    /** {@return what the child wrote to its standard error so far} */
    public String errors() {
        try {
            return Files.readString(errors);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /**
     * Writes one line to the child's standard input.
     *
     * @param line the line, without its end
     * @throws IOException when the child's input is closed
     */
    public void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /**
     * Waits for the child to exit and its output to end.
     *
     * @param timeout how long to wait
     * @return its exit code
     * @throws AssertionError when it is still running at the timeout
     * @throws InterruptedException when interrupted while waiting
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new AssertionError(name + " still runs after " + timeout + "; " + this);
        }
        output.awaitEnd(deadline, timeout);
        return process.exitValue();
    }

    /**
     * Waits for the child's {@code DONE} line and a clean exit (the protocol of Idem's test workers).
     *
     * @param timeout how long to wait for each of the two
     * @return every line the child printed
     * @throws AssertionError when either does not come in time, or the exit code is not 0
     * @throws InterruptedException when interrupted while waiting
     */
    public List<String> finish(Duration timeout) throws InterruptedException {
        await("DONE", timeout);
        int exit = awaitExit(timeout);
        if (exit != 0) {
            throw new AssertionError(name + " did not exit cleanly (exit " + exit + "); " + this);
        }
        return lines();
    }

    /**
     * Sends {@code EXIT}, then waits as {@link #finish(Duration)}.
     *
     * @param timeout how long to wait for each of {@code DONE} and the exit
     * @throws IOException when the child's input is closed
     * @throws InterruptedException when interrupted while waiting
     */
    public void exit(Duration timeout) throws IOException, InterruptedException {
        send("EXIT");
        finish(timeout);
    }

    /** {@return the child's name, as its failures show it} */
    public String name() {
        return name;
    }

    /** {@return the child's process id} */
    public long pid() {
        return process.pid();
    }

    /**
     * SIGSTOP: the whole JVM stands still (as in a long GC pause or a frozen VM), its threads and timers included.
     *
     * @throws IOException when {@code kill} cannot be run
     * @throws InterruptedException when interrupted while waiting for {@code kill}
     */
    public void freeze() throws IOException, InterruptedException {
        signal("-STOP");
        frozen = true;
    }

    /**
     * SIGCONT after {@link #freeze()}.
     *
     * @throws IOException when {@code kill} cannot be run
     * @throws InterruptedException when interrupted while waiting for {@code kill}
     */
    public void thaw() throws IOException, InterruptedException {
        signal("-CONT");
        frozen = false;
    }

    private void signal(String which) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid())).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new IllegalStateException("kill " + which + " " + process.pid() + " (" + name + ") failed");
        }
    }

    /**
     * Kills the child with SIGKILL, as a crash would (no shutdown hook runs), and waits until it is gone.
     *
     * @throws AssertionError when it outlives SIGKILL for 30 seconds
     * @throws InterruptedException when interrupted while waiting
     */
    public void kill() throws InterruptedException {
        if (!process.destroyForcibly().waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " outlived SIGKILL for 30 s; " + this);
        }
    }

    /** Kills the child if it still runs (continuing it first if it is frozen); never throws. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        if (frozen) {
            try {
                signal("-CONT"); // SIGKILL works on a stopped process, but leave nothing stopped on the way
            } catch (IOException | InterruptedException | IllegalStateException ignored) {
                // killed below either way
            }
        }
        try {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // close() must not throw it; the caller's interrupt is kept
        }
    }

    /** {@return the child's state, its last lines of output and its standard error, for failure messages} */
    @Override
    public String toString() {
        List<String> output = lines();
        String err = errors();
        return name + " (" + (process.isAlive() ? "running" : "exit " + process.exitValue()) + "), output:\n"
                + String.join("\n", output.subList(Math.max(0, output.size() - SHOWN_LINES), output.size()))
                + "\nstderr (" + errors + "):\n"
                + (err.length() > SHOWN_ERROR_CHARS ? err.substring(0, SHOWN_ERROR_CHARS) + "..." : err);
    }

    /**
     * What a child JVM that ran to its end printed.
     *
     * @param exitCode its exit code
     * @param out its standard output, each line ended by {@code \n}
     * @param err its standard error
     */
    public record Run(int exitCode, String out, String err) {
        /**
         * {@return the value of the first {@code key=value} line of the output, or null}
         *
         * @param key the part before {@code =}
         */
        public String value(String key) {
            return out.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                    .findFirst().orElse(null);
        }

        /** {@return the lines of standard error that are not blank} */
        public List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** How to start one child JVM; not thread-safe, each setter returns this builder. */
    public static final class Builder {
        private final String mainClass;
        private String name;
        private Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        private List<String> classPath = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
        private final List<String> options = new ArrayList<>();
        private final List<String> args = new ArrayList<>();
        private Duration timeout = Duration.ofMinutes(1);

        private Builder(String mainClass, String name) {
            this.mainClass = mainClass;
            this.name = name;
        }

        /**
         * Names the child in its output thread, its standard error file and failure messages.
         *
         * @param name a short name (default: the main class's simple name)
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Starts the child with another JDK's launcher.
         *
         * @param executable the {@code bin/java} to run (default: this JVM's)
         * @return this builder
         */
        public Builder java(Path executable) {
            this.java = Objects.requireNonNull(executable, "executable");
            return this;
        }

        /**
         * Replaces the class path.
         *
         * @param entries the jars and folders (default: this JVM's class path)
         * @return this builder
         */
        public Builder classPath(List<String> entries) {
            this.classPath = List.copyOf(entries);
            return this;
        }

        /**
         * Adds options of the {@code java} launcher, before the main class.
         *
         * @param jvmOptions such as {@code -Xmx128m}
         * @return this builder
         */
        public Builder jvmOptions(String... jvmOptions) {
            options.addAll(List.of(jvmOptions));
            return this;
        }

        /**
         * Adds options of the {@code java} launcher, before the main class.
         *
         * @param jvmOptions such as {@code -Xmx128m}
         * @return this builder
         */
        public Builder jvmOptions(List<String> jvmOptions) {
            options.addAll(jvmOptions);
            return this;
        }

        /**
         * Sets a system property of the child.
         *
         * @param key the property's name
         * @param value its value
         * @return this builder
         */
        public Builder systemProperty(String key, String value) {
            options.add("-D" + key + "=" + value);
            return this;
        }

        /**
         * Attaches a java agent from the child's start ({@code -javaagent}); may be called more than once.
         *
         * @param jar the agent's jar
         * @param arguments the agent's arguments, or empty for none
         * @return this builder
         */
        public Builder javaAgent(String jar, String arguments) {
            options.add("-javaagent:" + jar + (arguments.isEmpty() ? "" : "=" + arguments));
            return this;
        }

        /**
         * Adds arguments of the main class.
         *
         * @param arguments passed to {@code main}
         * @return this builder
         */
        public Builder args(String... arguments) {
            args.addAll(List.of(arguments));
            return this;
        }

        /**
         * Bounds {@link #run()}.
         *
         * @param runFor how long the child may run (default one minute)
         * @return this builder
         */
        public Builder timeout(Duration runFor) {
            this.timeout = Objects.requireNonNull(runFor, "runFor");
            return this;
        }

        /**
         * Starts the child; the test waits on it and closes it.
         *
         * @return the running child
         * @throws UncheckedIOException when the process or its standard error file cannot be created
         */
        public ChildJvm start() {
            List<String> command = new ArrayList<>();
            command.add(java.toString());
            command.addAll(options);
            command.add("-cp");
            command.add(String.join(File.pathSeparator, classPath));
            command.add(mainClass);
            command.addAll(args);
            try {
                Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "workers").toAbsolutePath();
                Files.createDirectories(dir);
                Path errors = Files.createTempFile(dir, name + "-", ".err");
                return new ChildJvm(name, new ProcessBuilder(command).redirectError(errors.toFile()).start(), errors);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + command, e);
            }
        }

        /**
         * Starts the child with its standard input closed and waits for its end.
         *
         * @return what it printed and how it exited
         * @throws AssertionError when it runs longer than the {@linkplain #timeout(Duration) timeout} (it is killed)
         * @throws InterruptedException when interrupted while waiting (it is killed)
         */
        public Run run() throws InterruptedException {
            try (ChildJvm child = start()) {
                try {
                    child.process.getOutputStream().close();
                } catch (IOException alreadyGone) {
                    // it exited before reading anything: its output says why
                }
                int exit = child.awaitExit(timeout);
                StringBuilder out = new StringBuilder();
                child.lines().forEach(l -> out.append(l).append('\n'));
                return new Run(exit, out.toString(), child.errors());
            }
        }
    }
}
