package dev.idem.benchmarks;

import dev.idem.core.IdemEngine;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The calling threads' CPU time per fresh call on the in-memory store ({@code CallBenchmarks.idemFresh}'s call), with
 * {@code threads} threads each calling with keys of its own: the engine's own CPU with the cheapest store, which is
 * what a store-backed fresh call adds to the driver's. CPU time moves less than wall-clock time on a loaded machine;
 * it still moves with the machine's load (caches, the other hyperthread), so compare versions alternately, and read
 * the median of the rounds (the minimum is printed too).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.EngineCpuPerCall [calls (200000)] [threads (8)] [rounds (7)]
 * </pre>
 */
public final class EngineCpuPerCall {
    private EngineCpuPerCall() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        IdemEngine engine = Engines.installFresh();
        Generator fresh = new Generators.IdemFresh();
        AtomicLong unique = new AtomicLong();
        run(fresh, threads, calls, unique); // warm-up: the JIT, and the local results filled to their bound
        run(fresh, threads, calls, unique);
        double[] perCall = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            perCall[r] = run(fresh, threads, calls, unique) / 1e3 / calls;
        }
        double[] sorted = perCall.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "fresh in-memory, %d threads: callers' CPU µs/call median %.3f min %.3f (%s)%n",
                threads, sorted[rounds / 2], sorted[0], Arrays.toString(perCall));
        engine.close();
    }

    /** The calling threads' CPU time, summed, in ns, for {@code calls} calls spread over {@code threads} threads. */
    private static long run(Generator fresh, int threads, int calls, AtomicLong unique) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        AtomicLong cpu = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            String topic = "cpu-" + unique.incrementAndGet();
            int each = calls / threads;
            workers[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                long before = mx.getCurrentThreadCpuTime();
                for (int i = 0; i < each; i++) {
                    fresh.generate(new GenerateRequest(topic, i));
                }
                cpu.addAndGet(mx.getCurrentThreadCpuTime() - before);
            });
            workers[t].start();
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        return cpu.get();
    }
}
