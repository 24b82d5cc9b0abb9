package dev.idem.core;

import dev.idem.testsupport.CapturedLog;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.util.logging.Level;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.Idempotent;
import dev.idem.OnUndecodable;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Results as data (SEMANTICS.md section 7) through the codec SPI, with the core's {@code java} codec: which codec
 * stores a method's results, what is refused before the method ever runs, and what a call does with stored bytes the
 * current code cannot read.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResultCodecSelectionTest {
    /** The warnings these tests provoke on purpose are asserted, not printed. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of("dev.idem");

    private final EngineFixture fx = new EngineFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    /** A plain record: not Serializable, as records are unless declared so. */
    record Topic(String name) {
    }

    static final class NotSerializable {
    }

    record Wrapper(String label, NotSerializable inside) implements Serializable {
    }

    record Article(String title, int edition) implements Serializable {
    }

    static class Service {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "c:topics")
        List<Topic> topics(String day) {
            return List.of(new Topic(day));
        }

        @Idempotent(scope = "c:wrapper")
        Wrapper wrapper(String day) {
            return null;
        }

        @Idempotent(scope = "c:yaml", codec = "yaml")
        String yaml(String day) {
            return day;
        }

        @Idempotent(scope = "c:article")
        Article article(String topic) {
            return new Article(topic, runs.incrementAndGet());
        }

        @Idempotent(scope = "c:article", onUndecodable = OnUndecodable.RUN_AGAIN, coalesce = false)
        Article articleAgain(String topic) {
            return new Article(topic, runs.incrementAndGet());
        }
    }

    private final Service service = new Service();

    @Test
    void aNonSerializableTypeArgumentIsRefusedWhenPlannedBeforeTheMethodRuns() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(EngineFixture.find(Service.class, "topics")));

        String message = e.getMessage();
        assertTrue(message.contains(Service.class.getName() + "#topics"), message);
        assertTrue(message.contains(Topic.class.getName()) && message.contains("not Serializable"), message);
        assertTrue(message.contains("'java' codec") && message.contains("idem-codec-jackson"), message);
    }

    @Test
    void aSerializableRecordWithANonSerializableComponentIsRefusedWhenPlanned() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(EngineFixture.find(Service.class, "wrapper")));

        assertTrue(e.getMessage().contains(NotSerializable.class.getName() + " (in " + Wrapper.class.getName() + ")"),
                e.getMessage());
    }

    @Test
    void anUnknownCodecIsAConfigurationErrorListingTheKnownOnes() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> fx.engine.validate(EngineFixture.find(Service.class, "yaml")));

        assertTrue(e.getMessage().contains("@Idempotent(codec = \"yaml\")") && e.getMessage().contains("java"),
                e.getMessage());
    }

    @Test
    void anUnknownDefaultCodecIsNamedByItsSetting() {
        try (EngineFixture other = new EngineFixture(b -> b.defaultCodec("yaml"))) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> other.engine.validate(EngineFixture.find(Service.class, "article")));
            assertTrue(e.getMessage().contains("idem.codec = \"yaml\""), e.getMessage());
        }
        assertEquals("json", IdemSettings.fromProperties(java.util.Map.of("idem.codec", "json")).defaultCodec());
    }

    @Test
    void storedResultsBeginWithTheCodecsNameAndFormatVersion() throws Throwable {
        fx.call(service, "article", "rust");

        byte[] stored = record().result();

        assertArrayEquals(new byte[] {'I', 4, 'j', 'a', 'v', 'a', 1}, Arrays.copyOf(stored, 7));
    }

    @Test
    void bytesOfAnotherCodecAreRefusedNamingBothCodecsAndTheMethodDoesNotRun() throws Throwable {
        plant(header("json", 1), "{\"title\":\"rust\",\"edition\":1}".getBytes(StandardCharsets.UTF_8));

        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> fx.call(service, "article", "rust"));

        assertTrue(e.getMessage().contains("'json' codec") && e.getMessage().contains("'java'"), e.getMessage());
        assertEquals(0, service.runs.get());
    }

    @Test
    void aNewerFormatIsRefusedRatherThanMisread() throws Throwable {
        plant(header("java", 2), new byte[] {2});

        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> fx.call(service, "article", "rust"));

        assertTrue(e.getMessage().contains("format 2") && e.getMessage().contains("newer"), e.getMessage());
    }

    @Test
    void anUndecodableResultIsRefusedWithWhenItRanAndHowToClearIt() throws Throwable {
        IdempotencyRecord planted = plant(header("java", 1), new byte[] {1, (byte) 0xAC, (byte) 0xED, 0, 5, 99});

        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> fx.call(service, "article", "rust"));

        String message = e.getMessage();
        assertTrue(message.contains(planted.key()), message);
        assertTrue(message.contains("completed at " + planted.completedAt()), message);
        assertTrue(message.contains("delete the record") && message.contains("onUndecodable = RUN_AGAIN"), message);
        assertEquals(0, service.runs.get(), "the operation did run once, so it is not run again by default");
        assertEquals(1, fx.count(IdempotencyEventType.RESULT_UNREADABLE));
        log.assertLogged(Level.WARNING, "RESULT_UNREADABLE");
    }

    @Test
    void withRunAgainExactlyOneOfManyCallersRunsTheMethodAgainOverAnUndecodableResult() throws Throwable {
        plant(header("java", 1), new byte[] {1, (byte) 0xAC, (byte) 0xED, 0, 5, 99});
        int callers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Object>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    try {
                        return fx.call(service, "articleAgain", "rust");
                    } catch (Exception e) {
                        throw e;
                    } catch (Throwable t) {
                        throw new IllegalStateException(t);
                    }
                }));
            }
            start.countDown();
            for (Future<Object> result : results) {
                assertEquals(new Article("rust", 1), result.get(30, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, service.runs.get(), "the unreadable record was superseded by one claim");
        assertEquals(1, fx.count(IdempotencyEventType.RESULT_UNREADABLE));
    }

    private static byte[] header(String codec, int version) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('I');
        out.write(codec.length());
        out.writeBytes(codec.getBytes(StandardCharsets.US_ASCII));
        out.write(version);
        return out.toByteArray();
    }

    /** Runs article("rust") in a throwaway engine to learn its record, then stores {@code bytes} under its key. */
    private IdempotencyRecord plant(byte[] header, byte[] body) throws Throwable {
        IdempotencyRecord learned;
        try (EngineFixture probe = new EngineFixture(b -> b.clock(fx.clock))) {
            probe.call(new Service(), "article", "rust");
            learned = probe.store.get(probe.last(IdempotencyEventType.EXECUTED).key()).orElseThrow();
        }
        ClaimOutcome claim = fx.store.claim(new ClaimRequest(learned.key(), learned.payloadHash(), "an older release",
                Duration.ofSeconds(30), Duration.ZERO));
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, claim).fencingToken();
        byte[] stored = Arrays.copyOf(header, header.length + body.length);
        System.arraycopy(body, 0, stored, header.length, body.length);
        assertTrue(fx.store.complete(learned.key(), token, stored, Duration.ofMinutes(30)));
        fx.clock.advance(Duration.ofSeconds(5)); // the planted record is older than the supersede window
        return fx.store.get(learned.key()).orElseThrow();
    }

    private IdempotencyRecord record() {
        return fx.store.get(fx.last(IdempotencyEventType.EXECUTED).key()).orElseThrow();
    }
}
