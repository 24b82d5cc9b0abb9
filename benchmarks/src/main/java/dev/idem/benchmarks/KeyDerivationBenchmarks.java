package dev.idem.benchmarks;

import dev.idem.core.IdemSettings;
import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.plan.OperationPlan;
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
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Key derivation alone (canonical encoding + SHA-256 + the key object), for argument shapes users have. It has no
 * public contract, so this measures core's internals ({@code EngineCore}, {@code OperationPlan}) on purpose:
 * benchmarks are on top of every module and may; the architecture tests do not read this module.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class KeyDerivationBenchmarks {
    private EngineCore core;
    private OperationPlan scalars;
    private OperationPlan record;
    private OperationPlan prompt;
    private OperationPlan map;
    private Object[] scalarArgs;
    private Object[] recordArgs;
    private Object[] promptArgs;
    private Object[] mapArgs;

    @Setup(Level.Trial)
    public void setUp() throws NoSuchMethodException {
        core = new EngineCore(IdemSettings.ofDefaults(), null, KeyShapes.class.getClassLoader());
        scalars = plan("twoScalars", String.class, int.class);
        record = plan("record", KeyShapes.TenFields.class);
        prompt = plan("prompt", String.class);
        map = plan("map", Map.class);
        scalarArgs = new Object[] {"rust", 20261129};
        recordArgs = new Object[] {new KeyShapes.TenFields("order-17", "Ada Lovelace", 3, 129_900L, true, 1.25,
                "eu-west", LocalDate.of(2026, 11, 29), UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
                List.of("vip", "gift"))};
        StringBuilder text = new StringBuilder();
        while (text.length() < 4096) {
            text.append("Write today's article about Rust ownership for a beginner audience. ");
        }
        promptArgs = new Object[] {text.substring(0, 4096)};
        Map<String, String> attributes = new TreeMap<>();
        for (int i = 0; i < 50; i++) {
            attributes.put("attribute-" + i, "value-" + (i * 7919 % 1000));
        }
        mapArgs = new Object[] {attributes};
    }

    private OperationPlan plan(String name, Class<?>... parameters) throws NoSuchMethodException {
        Method method = KeyShapes.class.getMethod(name, parameters);
        return core.plan(method);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        core.close();
    }

    @Benchmark
    public CallKey twoScalars() {
        return scalars.identify(scalarArgs, 0L);
    }

    @Benchmark
    public CallKey recordOfTenFields() {
        return record.identify(recordArgs, 0L);
    }

    @Benchmark
    public CallKey prompt4KB() {
        return prompt.identify(promptArgs, 0L);
    }

    @Benchmark
    public CallKey mapOf50Entries() {
        return map.identify(mapArgs, 0L);
    }
}
