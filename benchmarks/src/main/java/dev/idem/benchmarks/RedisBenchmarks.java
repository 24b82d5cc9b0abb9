package dev.idem.benchmarks;

import dev.idem.Idempotent;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.WeavingCheck;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The redis store through {@code @Idempotent} against the same work done bare, on the same Lettuce client and the same
 * server ({@code -Didem.bench.redis.uri}, which {@link RedisReport} sets to a redis-server it starts): a fresh call
 * (claim, run, complete: two round trips) against {@code SET k v NX PX} + {@code SET k v XX PX}; a replay of a result
 * this JVM does not hold (one round trip: the claim that loses returns the record) against the same pair and against a
 * bare {@code GET}; and a replay of a result this JVM holds (no round trip). Throughput, so the thread count
 * ({@code -t}) adds load.
 *
 * <p>A replay that goes to Redis on every call: the replaying engine's clock runs a day ahead and it sees the store
 * {@linkplain StoreWithoutItsTime without its time}, so the results it keeps in memory (stamped with Redis's expiry,
 * untranslated) are always stale to it and each call reads the record again, as a process
 * that did not compute the result does; Redis, whose clock decides, still holds the record.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RedisBenchmarks {
    static final String URI_PROPERTY = "idem.bench.redis.uri";

    /** A new key every call, through {@code @Idempotent}. */
    public static class Fresh implements Generator {
        @Override
        @Idempotent(scope = "bench:redis-fresh", ttl = "10m")
        public String generate(GenerateRequest request) {
            return ARTICLE;
        }
    }

    /** The one key every call replays. */
    public static class Replay implements Generator {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        @Idempotent(scope = "bench:redis-replay", ttl = "1h")
        public String generate(GenerateRequest request) {
            runs.incrementAndGet();
            return ARTICLE;
        }
    }

    /** The client, a store and engine on it, and a bare connection of the same client for the baselines. */
    @State(Scope.Benchmark)
    public static class Redis {
        final String run = UUID.randomUUID().toString().substring(0, 8);
        final Fresh fresh = new Fresh();
        final Replay replay = new Replay();
        final GenerateRequest replayed = new GenerateRequest("redis-replay-" + run, 1);
        final byte[] replayedBareKey = ("bench:redis-bare-replay:" + run).getBytes(StandardCharsets.UTF_8);
        RedisClient client;
        StatefulRedisConnection<byte[], byte[]> bare;
        RedisCommands<byte[], byte[]> commands;
        /** The two scripts of {@link #scriptFloorFresh}, loaded once. */
        String floorClaim;
        String floorFinish;
        /**
         * What the baselines write: values as long as the records Idem writes for {@link Fresh}, in progress (the
         * claim) and completed (the result), so that the bare commands and Idem move the same bytes
         * ({@link RecordLengths}).
         */
        byte[] claimValue;
        byte[] completedValue;
        IdemEngine engine;

        @Setup(Level.Trial)
        public void connect() {
            WeavingCheck.requireWoven(Fresh.class, Replay.class);
            String uri = System.getProperty(URI_PROPERTY);
            if (uri == null) {
                throw new IllegalStateException("-D" + URI_PROPERTY + "=redis://host:port names the Redis to use;"
                        + " RedisReport starts one and sets it");
            }
            client = RedisClient.create(uri);
            bare = client.connect(ByteArrayCodec.INSTANCE);
            commands = bare.sync();
            RecordLengths lengths = RecordLengths.of(this);
            claimValue = new byte[lengths.inProgress()];
            completedValue = new byte[lengths.completed()];
            commands.set(replayedBareKey, completedValue, SetArgs.Builder.px(Duration.ofHours(1)));
            floorClaim = commands.scriptLoad(FLOOR_CLAIM.getBytes(StandardCharsets.UTF_8));
            floorFinish = commands.scriptLoad(FLOOR_FINISH.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * An engine whose default store is a new redis store on the client, with {@code clock} as its clock; a clock
         * other than the JVM's sees the store {@linkplain StoreWithoutItsTime without its time}, so that the
         * results it keeps count by that clock.
         */
        IdemEngine install(Clock clock) {
            return install(clock, RedisIdempotencyStore.builder(client).build());
        }

        /** As {@link #install(Clock)}, over {@code store}. */
        IdemEngine install(Clock clock, IdempotencyStore store) {
            if (!clock.equals(Clock.systemUTC())) {
                store = new StoreWithoutItsTime(store);
            }
            IdemEngine next = IdemEngine.create(IdemSettings.custom().namespace("bench").defaultCodec("java")
                    .store("redis", store).defaultStore("redis").clock(clock).build());
            IdemEngine previous = Idem.install(next);
            if (previous != null) {
                previous.close();
            }
            engine = next;
            return next;
        }

        @TearDown(Level.Trial)
        public void close() {
            if (engine != null) {
                engine.close();
            }
            bare.close();
            client.shutdown();
        }
    }

    /** The engine with the JVM's clock: fresh calls, and replays of results this JVM holds. */
    @State(Scope.Benchmark)
    public static class Here {
        Redis redis;

        @Setup(Level.Trial)
        public void install(Redis redis) {
            this.redis = redis;
            redis.install(Clock.systemUTC());
            redis.replay.generate(redis.replayed);
        }
    }

    /** The engine a day ahead: every replay reads Redis. The record is written by an engine with the JVM's clock. */
    @State(Scope.Benchmark)
    public static class Elsewhere {
        Redis redis;

        @Setup(Level.Trial)
        public void install(Redis redis) {
            this.redis = redis;
            redis.install(Clock.systemUTC());
            redis.replay.generate(redis.replayed);
            redis.install(Clock.offset(Clock.systemUTC(), Duration.ofDays(1)));
        }

        @TearDown(Level.Trial)
        public void replaysWereReplays() {
            if (redis.replay.runs.get() > 1) {
                throw new IllegalStateException("the replayed method ran " + redis.replay.runs.get() + " times");
            }
        }
    }

    /** This thread's new keys. */
    @State(Scope.Thread)
    public static class Keys {
        private static final AtomicInteger THREADS = new AtomicInteger();
        private final String prefix = "redis-" + UUID.randomUUID().toString().substring(0, 8) + "-"
                + THREADS.incrementAndGet();
        private int next;

        GenerateRequest nextRequest() {
            return new GenerateRequest(prefix, next++);
        }

        byte[] nextBareKey() {
            return ("bench:redis-bare:" + prefix + ":" + next++).getBytes(StandardCharsets.UTF_8);
        }

        /** A new record key and its counter's, in one hash slot as a store's must be. */
        byte[][] nextScriptKeys() {
            String tag = "bench:{" + prefix + ":" + next++ + "}:";
            return new byte[][] {(tag + "r").getBytes(StandardCharsets.UTF_8),
                    (tag + "t").getBytes(StandardCharsets.UTF_8)};
        }
    }

    /** The baseline of a fresh call: take the key if absent, then overwrite it with the result; two round trips. */
    @Benchmark
    public String baselineSetNxSetXx(Redis redis, Keys keys) {
        byte[] key = keys.nextBareKey();
        redis.commands.set(key, redis.claimValue, SetArgs.Builder.nx().px(60_000));
        return redis.commands.set(key, redis.completedValue, SetArgs.Builder.xx().px(600_000));
    }

    /**
     * {@link #scriptFloorFresh}'s claim: take the key if absent, its lease ended by the server's clock (the record's
     * PX), and draw a token from the key's counter; the record there otherwise.
     */
    private static final String FLOOR_CLAIM = "local r = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'GET', 'PX', 60000)"
            + " if r then return r end return redis.call('INCR', KEYS[2])";
    /** {@link #scriptFloorFresh}'s completion: read the record (where an owner check looks), write the result. */
    private static final String FLOOR_FINISH = "local r = redis.call('GET', KEYS[1]) if not r then return 0 end"
            + " redis.call('SET', KEYS[1], ARGV[1], 'PX', 600000) return 1";

    /**
     * The least any fresh call made of server-side scripts can cost, with no engine and no store: two {@code EVALSHA}
     * round trips, the first taking the key if absent ({@code SET NX GET}, the lease ended by the server's clock) and
     * drawing a fencing token ({@code INCR} on the key's counter), the second reading the record and overwriting it
     * with the result. It checks nothing and its record holds no token, no times and no owner: a lower bound of what
     * Idem's two scripts do (a server-clock lease, a fencing token that outlives the record, an owner check, a
     * logical expiry, a wake-up), not an implementation of it. How far it stays from the bare {@code SET}s is what
     * scripts cost Redis before they do any of Idem's work.
     */
    @Benchmark
    public Object scriptFloorFresh(Redis redis, Keys keys) {
        byte[][] k = keys.nextScriptKeys();
        redis.commands.evalsha(redis.floorClaim, ScriptOutputType.INTEGER, k, redis.claimValue);
        return redis.commands.evalsha(redis.floorFinish, ScriptOutputType.INTEGER, k, redis.completedValue);
    }

    /** The least a replay from Redis can cost: one GET. */
    @Benchmark
    public byte[] baselineGet(Redis redis) {
        return redis.commands.get(redis.replayedBareKey);
    }

    @Benchmark
    public String idemFresh(Here here, Keys keys) {
        return here.redis.fresh.generate(keys.nextRequest());
    }

    @Benchmark
    public String idemReplayFromRedis(Elsewhere elsewhere) {
        return elsewhere.redis.replay.generate(elsewhere.redis.replayed);
    }

    @Benchmark
    public String idemReplayHeldHere(Here here) {
        return here.redis.replay.generate(here.redis.replayed);
    }
}
