package dev.idem.store.redis;

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
 * {@code target/} (its log is {@code redis.log} there), without persistence; {@link #close()} stops it. Starting waits
 * at most 20 seconds for the port to answer.
 */
final class RedisServerProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServerProcess(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /** The {@code redis-server} on the PATH; when there is none the calling test is skipped, saying why. */
    static Path binaryOrSkip(String what) {
        Path binary = onPath("redis-server");
        if (binary == null) {
            String reason = "no redis-server is on the PATH: " + what + " skipped";
            System.out.println(reason);
            assumeTrue(false, reason);
        }
        return binary;
    }

    /** A port nobody listens on now, on the loopback interface. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The folder a server named {@code name} on {@code port} works in, created. */
    static Path dirFor(String name, int port) throws IOException {
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), name + "-" + port).toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    /**
     * Starts {@code redis-server leading... --port port --bind 127.0.0.1 --dir dir --save "" --appendonly no
     * options...} and waits until the port answers.
     *
     * @param leading what comes first, such as a configuration file and {@code --sentinel}
     * @param options further options, such as {@code --cluster-enabled yes}
     */
    static RedisServerProcess start(Path binary, String name, int port, List<String> leading, List<String> options)
            throws IOException, InterruptedException {
        Path dir = dirFor(name, port);
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(leading);
        command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                "--save", "", "--appendonly", "no", "--daemonize", "no"));
        command.addAll(options);
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return new RedisServerProcess(process, port, dir);
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException(name + " did not start on port " + port + " within "
                            + START_TIMEOUT + "; see " + dir.resolve("redis.log") + ": " + String.join(" ", command));
                }
                Thread.sleep(50);
            }
        }
    }

    int port() {
        return port;
    }

    Path dir() {
        return dir;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Stops the server, forcibly if it has not stopped within 10 seconds. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
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
