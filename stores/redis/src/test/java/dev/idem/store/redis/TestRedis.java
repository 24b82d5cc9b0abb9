package dev.idem.store.redis;

import dev.idem.testsupport.RedisServerProcess;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Path;
import java.util.List;

/**
 * The Redis a test class uses: the server at {@code IDEM_TEST_REDIS_URI} when set (CI sets it), else a real
 * {@code redis-server} from the PATH started on a free loopback port without persistence ({@link RedisServerProcess})
 * before the class's tests and stopped after them. Without either the tests are skipped, saying why.
 *
 * <p>A JUnit extension: a test class registers one on a static field with {@code @RegisterExtension}, so the server is
 * up before the class's own {@code @BeforeAll} methods run and stopped after its {@code @AfterAll} methods.
 */
final class TestRedis implements BeforeAllCallback, AfterAllCallback {
    private String uri;
    private RedisServerProcess process;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        String configured = System.getenv("IDEM_TEST_REDIS_URI");
        if (configured != null && !configured.isBlank()) {
            uri = configured.trim();
            return;
        }
        Path binary = RedisServerProcess.binaryOrSkip("IDEM_TEST_REDIS_URI is not set and the Redis store's tests are");
        process = RedisServerProcess.start(binary, "redis", RedisServerProcess.freePort(), List.of(), List.of());
        uri = process.uri();
        System.out.println("IDEM_TEST_REDIS_URI is not set: the Redis store's tests run on " + binary + " at port "
                + process.port());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (process != null) {
            process.close();
            process = null;
        }
    }

    /** The server's URI; set once the class's tests are about to run. */
    String uri() {
        if (uri == null) {
            throw new IllegalStateException("TestRedis starts before a test class's tests: register it with"
                    + " @RegisterExtension on a static field");
        }
        return uri;
    }
}
