package dev.idem.benchmarks;

import dev.idem.core.IdemEngine;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;

/**
 * One call of {@link Generator#generate}: plainly, the hand-written floor, Idem (replay and fresh key) and the peer
 * (replay and fresh key), all in one run so the ratios compare like with like.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CallBenchmarks {
    private final GenerateRequest request = new GenerateRequest("rust", 20261129);
    private final Generator plain = new Generators.Plain();
    private final Generators.Idem idem = new Generators.Idem();
    private final Generator idemFresh = new Generators.IdemFresh();
    private final Generator idemFreshExpiring = new Generators.IdemFreshExpiring();
    private final Generators.Peer peer = new Generators.Peer();
    private final Generator peerFresh = new Generators.Peer();
    private final Floor floor = new Floor();
    private final Generators.JsonReports json = new Generators.JsonReports();
    private final Generators.JsonReports jsonFresh = new Generators.JsonReports();
    private final Generators.JavaReports java = new Generators.JavaReports();
    private final Generators.JavaReports javaFresh = new Generators.JavaReports();
    private IdemEngine engine;
    private Method idemMethod;

    /** A new request per call, for the fresh-key variants. */
    @State(Scope.Thread)
    public static class FreshRequests {
        private int next;

        GenerateRequest next() {
            return new GenerateRequest("topic", next++);
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws NoSuchMethodException {
        idemMethod = Generators.Idem.class.getMethod("generate", GenerateRequest.class);
        WeavingCheck.requireWoven(Generators.Idem.class, Generators.IdemFresh.class,
                Generators.IdemFreshExpiring.class, Generators.JsonReports.class, Generators.JavaReports.class);
        floor.remember(request, Generator.ARTICLE);
    }

    @Setup(Level.Iteration)
    public void freshStores() throws ReflectiveOperationException {
        // The fresh-key variants would fill the heap over a run. The peer's repository never evicts, so it gets a
        // new one every iteration; Idem gets the same treatment (a new engine and in-memory store), so neither
        // pays for eviction in idemFresh / peerFresh. idemFreshWithExpiry measures Idem with eviction on.
        Engines.emptyPeerRepository();
        engine = Engines.installFresh();
        // The replay keys, stored again at once.
        idem.generate(request);
        peer.generate(request);
        json.report(request);
        java.report(request);
    }

    @TearDown(Level.Trial)
    public void replaysWereReplays() {
        // A replay benchmark whose body kept running would be measuring something else: refuse the numbers.
        if (idem.runs.get() > 100) {
            throw new IllegalStateException("idemReplay ran its body " + idem.runs.get() + " times");
        }
        if (json.runs.get() > 100 || java.runs.get() > 100) {
            throw new IllegalStateException("a record replay ran its body " + json.runs.get() + " / "
                    + java.runs.get() + " times");
        }
        if (peer.runs.get() > 100) {
            throw new IllegalStateException("peerReplay ran its body " + peer.runs.get() + " times");
        }
    }

    @Benchmark
    public String plain() {
        return plain.generate(request);
    }

    @Benchmark
    public String floor() {
        return floor.lookup(request);
    }

    /** The floor plus one read of the clock, which a replay of a result that expires must make. */
    @Benchmark
    public String floorWithClock() {
        return floor.lookupWithClock(request);
    }

    @Benchmark
    public String idemReplay() {
        return idem.generate(request);
    }

    /**
     * The same replay handed to the engine directly, as woven advice does but without AspectJ's join point: the
     * difference from {@link #idemReplay} is what the weaving itself costs.
     */
    @Benchmark
    public Object idemReplayEngineOnly() throws Throwable {
        return engine.invoke(idemMethod, new Object[] {request}, () -> {
            throw new IllegalStateException("a replay must not run the method");
        });
    }

    @Benchmark
    public String idemFresh(FreshRequests fresh) {
        return idemFresh.generate(fresh.next());
    }

    @Benchmark
    public String idemFreshWithExpiry(FreshRequests fresh) {
        return idemFreshExpiring.generate(fresh.next());
    }

    @Benchmark
    public String peerReplay() {
        return peer.generate(request);
    }

    @Benchmark
    public String peerFresh(FreshRequests fresh) {
        return peerFresh.generate(fresh.next());
    }

    /**
     * A replay of a ten-field record stored by the json codec. It is answered from the engine's local results, which
     * hold the decoded value, so the codec is not on this path; {@link #javaReplay} is its twin.
     */
    @Benchmark
    public Report10 jsonReplay() {
        return json.report(request);
    }

    /** A new key per call returning a ten-field record, stored through the json codec (encoded once per call). */
    @Benchmark
    public Report10 jsonFresh(FreshRequests fresh) {
        return jsonFresh.report(fresh.next());
    }

    /** {@link #jsonReplay} with the java codec. */
    @Benchmark
    public Report10 javaReplay() {
        return java.report(request);
    }

    /** {@link #jsonFresh} with the java codec. */
    @Benchmark
    public Report10 javaFresh(FreshRequests fresh) {
        return javaFresh.report(fresh.next());
    }
}
