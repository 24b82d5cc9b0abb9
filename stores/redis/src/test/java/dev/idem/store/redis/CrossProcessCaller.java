package dev.idem.store.redis;

import dev.idem.IdempotencyContext;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process that calls one idempotent operation through an engine over a {@link RedisIdempotencyStore}, started by
 * {@link CrossProcessTest} as a separate JVM on the test's class path. It reports on standard output, one line each:
 * {@code RAN <key> <token>} when the body runs, {@code RESULT <key> <value>} or {@code ERROR <key> <exception>} for
 * each call, {@code HOLDING <key> <token>} for a body that never returns, and at the end {@code CLAIMS <n>} (the claims
 * it sent, after {@code GO} in {@code share} mode) and {@code DONE}.
 *
 * <p>Arguments: mode, Redis URI, scope, threads, keys, then mode-specific ones.
 * <ul>
 *   <li>{@code share <recheck>}: makes one call of its own, prints {@code READY}, waits for {@code GO} on standard
 *       input, then thread {@code t} calls every key once, starting at key {@code t * keys / threads}, so the same
 *       thread of every process meets the same keys. A body returns once another process waits for it (the
 *       server counts a subscriber on the key's channel), or after {@link #WAIT_FOR_A_WAITER}: on two busy cores
 *       processes drift apart, and a body of fixed length would leave the test to chance.</li>
 *   <li>{@code hold <lease>}: thread {@code t} calls key {@code t}, and the body never returns (the test kills the
 *       process while it holds the claims).</li>
 *   <li>{@code takeover <lease> <recheck>}: thread {@code t} calls key {@code t}; the body returns at once.</li>
 * </ul>
 */
public final class CrossProcessCaller {
    /** The longest a body waits for another process to wait for it. */
    private static final long WAIT_FOR_A_WAITER = TimeUnit.SECONDS.toNanos(3);

    private CrossProcessCaller() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String uri = args[1];
        String scope = args[2];
        int threads = Integer.parseInt(args[3]);
        int keys = Integer.parseInt(args[4]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String me = ProcessHandle.current().pid() + "";
        IdempotencyPolicy.Builder policy = IdempotencyPolicy.custom().operation("Reports#build").scope(scope)
                .waitTimeout(Duration.ofSeconds(20));
        String recheck = "1s";
        switch (mode) {
            case "share" -> recheck = args[5];
            case "hold" -> policy.lease(Duration.parse(args[5]));
            case "takeover" -> {
                policy.lease(Duration.parse(args[5]));
                recheck = args[6];
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        RedisClient observer = RedisClient.create(uri);
        StatefulRedisConnection<String, String> server = observer.connect();
        // The claims this process sends, counted here: the store gathers concurrent claims into one script call, so
        // the server's count of calls is not the count of claims.
        AtomicLong claims = new AtomicLong();
        IdempotencyStore store = new ForwardingIdempotencyStore(RedisIdempotencyStore.builder(uri)
                .timeout(Duration.ofSeconds(5)).build()) {
            @Override
            public ClaimOutcome claim(ClaimRequest request) {
                claims.incrementAndGet();
                return super.claim(request);
            }
        };
        try (IdemEngine engine = IdemEngine.create(IdemSettings.custom().store("redis", store).defaultStore("redis")
                .property("idem.waitRecheck", recheck).build())) {
            IdempotentOperation<String> operation = engine.operation(policy.build(), String.class);
            if (mode.equals("share")) {
                // Warm: a process that has served a call before is what meets the others' calls, not one loading
                // classes and connecting while the others run ahead.
                operation.call(() -> "warm", "warm-" + me);
                out.println("READY");
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                if (!"GO".equals(in.readLine())) {
                    throw new IllegalStateException("expected GO");
                }
                claims.set(0); // the warm-up's claim is not the test's
            }
            CountDownLatch never = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    int calls = mode.equals("share") ? keys : 1;
                    for (int i = 0; i < calls; i++) {
                        String key = "k" + (mode.equals("share") ? (thread * keys / threads + i) % keys : thread);
                        try {
                            String value = operation.call(() -> {
                                long token = IdempotencyContext.current().orElseThrow().fencingToken();
                                if (mode.equals("hold")) {
                                    out.println("HOLDING " + key + " " + token);
                                    never.await();
                                }
                                out.println("RAN " + key + " " + token);
                                if (mode.equals("share")) {
                                    awaitAWaiter(server, IdempotencyContext.current().orElseThrow().key());
                                }
                                return key + "@" + me + "/" + thread + "/" + token;
                            }, key);
                            out.println("RESULT " + key + " " + value);
                        } catch (Exception e) {
                            out.println("ERROR " + key + " " + e.getClass().getSimpleName() + ": "
                                    + e.getMessage().replace('\n', ' '));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
            pool.shutdown();
        }
        server.close();
        observer.shutdown();
        out.println("CLAIMS " + claims.get());
        out.println("DONE");
    }

    private static void awaitAWaiter(StatefulRedisConnection<String, String> server, String key)
            throws InterruptedException {
        String channel = new String(ScriptArguments.redisKeys(key)[0], StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + WAIT_FOR_A_WAITER;
        while (server.sync().pubsubShardNumsub(channel).getOrDefault(channel, 0L) == 0
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
