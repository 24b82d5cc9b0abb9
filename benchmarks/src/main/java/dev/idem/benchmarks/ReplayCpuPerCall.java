package dev.idem.benchmarks;

import dev.idem.core.IdemSettings;
import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.key.CanonicalEncoder;
import dev.idem.core.internal.plan.OperationPlan;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * The thread's CPU time per call of {@code CallBenchmarks.idemReplay} and {@code CallBenchmarks.floorWithClock}, and
 * of the replay's key derivation alone ({@code OperationPlan.probe} on an acquired encoder), measured in alternating
 * batches on one thread: on a shared machine a thread's CPU time moves less than wall-clock time, and alternating
 * puts every variant under the same load. Prints each variant's median and minimum per call over the rounds, and the
 * median of the per-round ratios replay / floorWithClock (the goal of issue 8 is 1.3 or less).
 *
 * <p>Key derivation alone has no public contract, so this measures core's internals ({@code EngineCore},
 * {@code OperationPlan}) on purpose: benchmarks are on top of every module and may; the architecture tests do not
 * read this module.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.ReplayCpuPerCall [calls per batch (300000)] [rounds (15)] [all|pair|jmh]
 * </pre>
 */
public final class ReplayCpuPerCall {
    private ReplayCpuPerCall() {
    }

    /** Defeats dead-code elimination: every variant's answer is folded in. */
    private static int sink;

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        GenerateRequest request = new GenerateRequest("rust", 20261129);
        Floor floor = new Floor();
        floor.remember(request, Generator.ARTICLE);
        Engines.installFresh();
        Generators.Idem idem = new Generators.Idem();
        idem.generate(request); // stored: every later call is a replay
        EngineCore core = new EngineCore(IdemSettings.ofDefaults(), null, Generators.class.getClassLoader());
        OperationPlan plan = core.plan(Generators.Idem.class.getMethod("generate", GenerateRequest.class));

        String[] names = {"idemReplay", "floorWithClock", "keyDerivation"};
        Batch[] variants = {
            n -> {
                int h = 0;
                for (int i = 0; i < n; i++) {
                    h += idem.generate(request) != null ? 1 : 0;
                }
                return h;
            },
            n -> {
                int h = 0;
                for (int i = 0; i < n; i++) {
                    h += floor.lookupWithClock(request) != null ? 1 : 0;
                }
                return h;
            },
            n -> {
                int h = 0;
                for (int i = 0; i < n; i++) {
                    CanonicalEncoder encoder = CanonicalEncoder.acquire();
                    try {
                        h += (int) plan.probe(encoder, new Object[] {request}, 0L).hi();
                    } finally {
                        encoder.release();
                    }
                }
                return h;
            },
        };
        String mode = args.length > 2 ? args[2] : "all";
        CallBenchmarks bench = new CallBenchmarks();
        if (mode.equals("pair")) { // the two of the ratio alone, no third profile in the JIT
            variants = Arrays.copyOf(variants, 2);
        } else if (mode.equals("jmh")) {
            // As the JMH run calls them: through the benchmark's methods, a new engine before every round as JMH
            // makes one before every iteration (with the setup's calls of the other replays).
            bench.setUp();
            bench.freshStores();
            variants = new Batch[] {
                n -> {
                    int h = 0;
                    for (int i = 0; i < n; i++) {
                        h += bench.idemReplay() != null ? 1 : 0;
                    }
                    return h;
                },
                n -> {
                    int h = 0;
                    for (int i = 0; i < n; i++) {
                        h += bench.floorWithClock() != null ? 1 : 0;
                    }
                    return h;
                },
            };
        }
        for (int w = 0; w < 5; w++) { // the JIT's warm-up
            for (Batch variant : variants) {
                batch(variant, calls);
            }
        }
        double[][] perCall = new double[variants.length][rounds];
        double[] ratios = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            if (mode.equals("jmh")) {
                bench.freshStores();
            }
            for (int v = 0; v < variants.length; v++) {
                perCall[v][r] = (double) batch(variants[v], calls) / calls;
            }
            ratios[r] = perCall[0][r] / perCall[1][r];
        }
        for (int v = 0; v < variants.length; v++) {
            double[] sorted = perCall[v].clone();
            Arrays.sort(sorted);
            System.out.printf(Locale.ROOT, "%-15s CPU ns/call median %6.1f  min %6.1f%n", names[v],
                    sorted[rounds / 2], sorted[0]);
        }
        double[] sortedRatios = ratios.clone();
        Arrays.sort(sortedRatios);
        System.out.printf(Locale.ROOT, "idemReplay / floorWithClock per round: median %.3f (min %.3f, max %.3f)%n",
                sortedRatios[rounds / 2], sortedRatios[0], sortedRatios[rounds - 1]);
        if (mode.equals("jmh")) {
            bench.replaysWereReplays();
        } else if (idem.runs.get() != 1) {
            throw new IllegalStateException("the replay ran its body " + idem.runs.get() + " times");
        }
        core.close();
        System.out.println(sink == 42 ? "" : "");
    }

    /** {@code calls} calls of one variant in a loop of its own, so that each is compiled on its own. */
    private interface Batch {
        int run(int calls);
    }

    /** The thread's CPU time, in ns, for {@code calls} calls of {@code variant}. */
    private static long batch(Batch variant, int calls) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadCpuTime();
        sink += variant.run(calls);
        return mx.getCurrentThreadCpuTime() - before;
    }
}
