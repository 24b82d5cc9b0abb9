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
 * The Redis the tests use: the server at {@code IDEM_TEST_REDIS_URI} when set (CI sets it), else a real
 * {@code redis-server} from the PATH started on a free loopback port without persistence, stopped by {@link #close()}.
 * Without either the tests are skipped, saying why.
 */
final class TestRedis implements AutoCloseable {
    private final String uri;
    private final Process process;

    private TestRedis(String uri, Process process) {
        this.uri = uri;
        this.process = process;
    }

    static TestRedis start() throws Exception {
        String configured = System.getenv("IDEM_TEST_REDIS_URI");
        if (configured != null && !configured.isBlank()) {
            return new TestRedis(configured.trim(), null);
        }
        Path binary = onPath("redis-server");
        if (binary == null) {
            String reason = "IDEM_TEST_REDIS_URI is not set and no redis-server is on the PATH: the Redis store's tests"
                    + " are skipped";
            System.out.println(reason);
            assumeTrue(false, reason);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path dir = Path.of(System.getProperty("idem.test.dir", "target"), "redis-" + port).toAbsolutePath();
        Files.createDirectories(dir);
        Process process = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                "--daemonize", "no"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                break;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("redis-server did not start on port " + port + "; see "
                            + dir.resolve("redis.log"));
                }
                Thread.sleep(50);
            }
        }
        System.out.println("IDEM_TEST_REDIS_URI is not set: the Redis store's tests run on " + binary + " at port "
                + port);
        return new TestRedis("redis://127.0.0.1:" + port, process);
    }

    String uri() {
        return uri;
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
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
