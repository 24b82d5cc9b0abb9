package dev.idem.benchmarks;

import dev.idem.Idempotent;
import dev.idem.core.WeavingCheck;
import dev.idem.tests.agent.app.ArticleService;
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
import org.openjdk.jmh.annotations.Warmup;

import java.io.Serializable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The same replay through the agent's advice and through compile-time weaving, in one JVM: the fork must be started
 * with {@code -javaagent:idem-agent.jar} (run.sh does), which instruments the javac-compiled
 * {@link ArticleService} and leaves the ajc-woven twin below alone.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class AgentBenchmarks {
    private final CompileTimeTwin woven = new CompileTimeTwin();
    private final ArticleService instrumented = new ArticleService();

    /**
     * {@link ArticleService#generate} as compile-time weaving sees it: the same shape, under a scope of its own of
     * the same length (one scope for two result types is refused).
     */
    public static class CompileTimeTwin {
        public record Article(String topic, int edition) implements Serializable {
        }

        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "twin:generate")
        public Article generate(String topic) {
            return new Article(topic, runs.incrementAndGet());
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        if (System.getProperty("dev.idem.agent.installed") == null) {
            throw new IllegalStateException("AgentBenchmarks need the fork started with -javaagent:idem-agent.jar"
                    + " (benchmarks/run.sh passes it with -jvmArgsAppend)");
        }
        Engines.installFresh();
        WeavingCheck.requireWoven(CompileTimeTwin.class, ArticleService.class);
        woven.generate("rust");
        instrumented.generate("rust");
    }

    @Benchmark
    public Object ctwReplay() {
        return woven.generate("rust");
    }

    @Benchmark
    public Object agentReplay() {
        return instrumented.generate("rust");
    }
}
