package dev.idem.store.redis;

import dev.idem.store.tck.RedisServerProcess;

import java.nio.file.Path;
import java.util.List;

/**
 * The Redis the tests use: the server at {@code IDEM_TEST_REDIS_URI} when set (CI sets it), else a real
 * {@code redis-server} from the PATH started on a free loopback port without persistence
 * ({@link RedisServerProcess}), stopped by {@link #close()}. Without either the tests are skipped, saying why.
 */
final class TestRedis implements AutoCloseable {
    private final String uri;
    private final RedisServerProcess process;

    private TestRedis(String uri, RedisServerProcess process) {
        this.uri = uri;
        this.process = process;
    }

    static TestRedis start() throws Exception {
        String configured = System.getenv("IDEM_TEST_REDIS_URI");
        if (configured != null && !configured.isBlank()) {
            return new TestRedis(configured.trim(), null);
        }
        Path binary = RedisServerProcess.binaryOrSkip("IDEM_TEST_REDIS_URI is not set and the Redis store's tests are");
        RedisServerProcess server = RedisServerProcess.start(binary, "redis", RedisServerProcess.freePort(), List.of(),
                List.of());
        System.out.println("IDEM_TEST_REDIS_URI is not set: the Redis store's tests run on " + binary + " at port "
                + server.port());
        return new TestRedis(server.uri(), server);
    }

    String uri() {
        return uri;
    }

    @Override
    public void close() {
        if (process != null) {
            process.close();
        }
    }
}
