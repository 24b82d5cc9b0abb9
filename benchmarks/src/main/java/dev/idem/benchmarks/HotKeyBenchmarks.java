package dev.idem.benchmarks;

import dev.idem.Idempotent;
import dev.idem.core.WeavingCheck;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One key hammered by one thread and by eight: as a completed key (replays) and as a key in flight (each execution
 * takes a few microseconds; when it finishes the next call starts a new key, and the callers that arrive meanwhile
 * join it). Eight threads should get at least the throughput of one: no lock convoy.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class HotKeyBenchmarks {
    private final GenerateRequest hot = new GenerateRequest("hot", 1);
    private final Generators.Idem replaying = new Generators.Idem();
    private final InFlight inFlight = new InFlight();

    /** Each execution burns a little CPU, then moves every caller on to the next key. */
    public static class InFlight implements Generator {
        final AtomicInteger epoch = new AtomicInteger();

        @Override
        @Idempotent(scope = "bench:in-flight", ttl = "10s")
        public String generate(GenerateRequest request) {
            Blackhole.consumeCPU(1000);
            epoch.incrementAndGet();
            return ARTICLE;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        Engines.installFresh();
        WeavingCheck.requireWoven(Generators.Idem.class, InFlight.class);
        replaying.generate(hot);
    }

    @Benchmark
    @Threads(1)
    public String hotReplay1Thread() {
        return replaying.generate(hot);
    }

    @Benchmark
    @Threads(8)
    public String hotReplay8Threads() {
        return replaying.generate(hot);
    }

    @Benchmark
    @Threads(1)
    public String inFlight1Thread() {
        return inFlight.generate(new GenerateRequest("in-flight", inFlight.epoch.get()));
    }

    @Benchmark
    @Threads(8)
    public String inFlight8Threads() {
        return inFlight.generate(new GenerateRequest("in-flight", inFlight.epoch.get()));
    }
}
