package dev.idem.testsupport;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A {@code redis-server} from the PATH that a test starts on a loopback port, in its own folder under
 * {@code idem.test.dir} (default {@code target}; its log is {@code redis.log} there), without persistence;
 * {@link #close()} stops it. Starting waits at most 20 seconds for the port to answer. A test may also kill it (an
 * outage: no goodbye to its clients) and start it again on the same port. A test that counts a server's commands or
 * scans its keys starts one of its own rather than share the one at {@code IDEM_TEST_REDIS_URI}.
 *
 * <p>Without a {@code redis-server} on the PATH the calling test is skipped (a JUnit assumption), saying why.
 */
public final class RedisServerProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final List<String> command;
    private final int port;
    private final Path dir;
    private Process process;

    private RedisServerProcess(List<String> command, int port, Path dir) {
        this.command = List.copyOf(command);
        this.port = port;
        this.dir = dir;
    }

    /**
     * A plain server on a free port; when there is no {@code redis-server} the calling test is skipped.
     *
     * @param what what is skipped without a server, completing "... skipped", such as {@code "the outage test is"}
     * @return the server, answering on its port
     * @throws IOException          when the server cannot be started
     * @throws InterruptedException when interrupted while waiting for the port
     */
    public static RedisServerProcess start(String what) throws IOException, InterruptedException {
        return start(binaryOrSkip(what), "redis", freePort(), List.of(), List.of());
    }

    /**
     * The {@code redis-server} on the PATH; when there is none the calling test is skipped, saying why.
     *
     * @param what what is skipped, completing "... skipped"
     * @return the executable
     */
    public static Path binaryOrSkip(String what) {
        Path binary = onPath("redis-server");
        if (binary == null) {
            String reason = "no redis-server is on the PATH: " + what + " skipped";
            System.out.println(reason);
            assumeTrue(false, reason);
        }
        return binary;
    }

    /**
     * A port nobody listens on now, on the loopback interface.
     *
     * @return the port
     * @throws IOException when no loopback port can be bound
     */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * The folder a server named {@code name} on {@code port} works in, {@code name-port} under
     * {@code idem.test.dir}; created.
     *
     * @param name what the server is, such as {@code redis-cluster}
     * @param port the server's port
     * @return the folder
     * @throws IOException when it cannot be created
     */
    public static Path dirFor(String name, int port) throws IOException {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), name + "-" + port).toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    /**
     * Starts {@code redis-server leading... --port port --bind 127.0.0.1 --dir dir --save "" --appendonly no
     * options...} and waits until the port answers.
     *
     * @param binary  the {@code redis-server}, from {@link #binaryOrSkip}
     * @param name    names the server's folder, {@code name-port} ({@link #dirFor})
     * @param port    the loopback port, such as a {@link #freePort()}
     * @param leading what comes first, such as a configuration file and {@code --sentinel}
     * @param options further options, such as {@code --cluster-enabled yes}
     * @return the server, answering on its port
     * @throws IOException          when the server cannot be started
     * @throws InterruptedException when interrupted while waiting for the port
     */
    public static RedisServerProcess start(Path binary, String name, int port, List<String> leading,
                                           List<String> options) throws IOException, InterruptedException {
        Path dir = dirFor(name, port);
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(leading);
        command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                "--save", "", "--appendonly", "no", "--daemonize", "no"));
        command.addAll(options);
        RedisServerProcess server = new RedisServerProcess(command, port, dir);
        server.startAgain();
        return server;
    }

    /**
     * Starts the server (again, after {@link #kill}) on its port and waits until the port answers.
     *
     * @throws IOException           when the process cannot be started
     * @throws InterruptedException  when interrupted while waiting for the port
     * @throws IllegalStateException when the port does not answer within 20 seconds (the log is in {@link #dir()})
     */
    public void startAgain() throws IOException, InterruptedException {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile())).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try {
                new Socket(InetAddress.getLoopbackAddress(), port).close(); // it accepts connections: started
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("redis-server did not start on port " + port + " within "
                            + START_TIMEOUT + "; see " + dir.resolve("redis.log") + ": " + String.join(" ", command));
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * Kills the server at once (an outage: no goodbye to its clients) and waits until it is gone.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * The loopback port the server listens on.
     *
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * The server's folder, with its {@code redis.log}.
     *
     * @return the folder
     */
    public Path dir() {
        return dir;
    }

    /**
     * The server's URI, for a store or a client.
     *
     * @return {@code redis://127.0.0.1:port}
     */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Stops the server, forcibly if it has not stopped within 10 seconds. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt(); // close() must not throw it; the caller's interrupt is kept
        }
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
