package dev.idem.reliability;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A {@code redis-server} from the PATH that the suite owns: started on a free loopback port without persistence, in
 * its own folder under {@code idem.test.dir} (its log is {@code redis.log} there), stopped by {@link #close()}. The
 * suite needs a server of its own, not the shared one at {@code IDEM_TEST_REDIS_URI}: its {@code INFO commandstats}
 * count only the suite's commands, and every key on it is the suite's to scan.
 */
final class RedisServerProcess implements AutoCloseable {
    private final Process process;
    private final int port;

    private RedisServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts a server and waits (at most 20 s) until it answers; without {@code redis-server} the test is skipped. */
    static RedisServerProcess start() throws IOException, InterruptedException {
        Path binary = onPath("redis-server");
        if (binary == null) {
            String reason = "no redis-server is on the PATH: the reliability suite's Redis tests are skipped";
            System.out.println(reason);
            assumeTrue(false, reason);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "redis-" + port).toAbsolutePath();
        Files.createDirectories(dir);
        Process process = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port), "--bind",
                "127.0.0.1", "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                new Socket(InetAddress.getLoopbackAddress(), port).close();
                return new RedisServerProcess(process, port);
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

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        for (String dir : path == null ? new String[0] : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
