package dev.idem.benchmarks;

import dev.idem.core.WeavingCheck;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * Calls with a new key each (claim, run, store), Idem's and the peer's, in batches of {@value #CALLS} calls on a new
 * store each: every batch starts with an empty in-memory store (Idem's engine and store, the peer's repository),
 * made before the batch and outside its time.
 *
 * <p>Why batches: a store that keeps every record makes the collector's work grow with the records already held,
 * so a benchmark that lets a store fill for a whole iteration charges each side by how many calls it made in it:
 * the faster library holds more records, pays more per collection, and once past the in-memory store's bound it
 * also evicts, while the peer's repository never does. A batch bounds what both hold to the same number of records,
 * below that bound, so the score is the cost of a fresh call with an equal amount of live data beside it, its
 * collections included. {@code CallBenchmarks.idemFreshWithExpiry} measures Idem with eviction on over whole
 * iterations.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class FreshCallBenchmarks {
    /** Calls per batch, each with a key of its own; well below the in-memory store's default bound. */
    static final int CALLS = 10_000;

    private final Generator idem = new Generators.IdemFresh();
    private final Generator peer = new Generators.Peer();
    private final GenerateRequest[] requests = new GenerateRequest[CALLS];

    @Setup(Level.Trial)
    public void requests() {
        WeavingCheck.requireWoven(Generators.IdemFresh.class);
        for (int i = 0; i < CALLS; i++) {
            requests[i] = new GenerateRequest("topic", i);
        }
    }

    /** Empty stores for the next batch: a new engine (with its in-memory store) and a new repository for the peer. */
    @Setup(Level.Invocation)
    public void emptyStores() throws ReflectiveOperationException {
        Engines.emptyPeerRepository();
        Engines.installFresh();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void idemFresh(Blackhole results) {
        for (GenerateRequest request : requests) {
            results.consume(idem.generate(request));
        }
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void peerFresh(Blackhole results) {
        for (GenerateRequest request : requests) {
            results.consume(peer.generate(request));
        }
    }
}
