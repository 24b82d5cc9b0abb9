package dev.idem.store.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A real {@code redis-server} from the PATH that a test owns: started on a loopback port without persistence, stopped
 * and started again on the same port when the test says so (an outage), stopped by {@link #close()}. Its files go
 * under {@code idem.test.dir}. Without a {@code redis-server} on the PATH the test is skipped, saying why.
 */
final class RedisServerProcess implements AutoCloseable {
    private final Path binary;
    private final int port;
    private final Path dir;
    private Process process;

    private RedisServerProcess(Path binary, int port) throws IOException {
        this.binary = binary;
        this.port = port;
        this.dir = Path.of(System.getProperty("idem.test.dir", "target"), "redis-" + port).toAbsolutePath();
        Files.createDirectories(dir);
    }

    /** Starts a server on a free port, or skips the test when there is no {@code redis-server} on the PATH. */
    static RedisServerProcess start(String why) throws Exception {
        Path binary = onPath("redis-server");
        if (binary == null) {
            String reason = "no redis-server is on the PATH: " + why;
            System.out.println(reason);
            assumeTrue(false, reason);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        RedisServerProcess server = new RedisServerProcess(binary, port);
        server.startAgain();
        return server;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    Path binary() {
        return binary;
    }

    /** Starts the server (again) on its port and waits until it accepts connections. */
    void startAgain() throws Exception {
        process = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                "--daemonize", "no"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("redis.log").toFile())).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("redis-server did not start on port " + port + "; see "
                            + dir.resolve("redis.log"));
                }
                Thread.sleep(50);
            }
        }
    }

    /** Kills the server at once (an outage: no goodbye to its clients) and waits until it is gone. */
    void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(d, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
