package dev.idem.store.redis;

import dev.idem.testsupport.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A Redis Cluster of three masters, each a {@code redis-server} from the PATH started by the test on free loopback
 * ports (its client port and its cluster bus port) in its own folder under {@code target/}. The test builds the
 * cluster itself: each master is given a third of the 16384 slots ({@code CLUSTER ADDSLOTS}) and the first meets the
 * others ({@code CLUSTER MEET}); starting waits at most {@link #FORM_TIMEOUT} until every master reports
 * {@code cluster_state:ok} with three known nodes. Without a {@code redis-server} the calling test is skipped, saying
 * why. {@link #close()} stops the three processes.
 */
final class TestRedisCluster implements AutoCloseable {
    static final int MASTERS = 3;
    private static final int SLOTS = 16384;
    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServerProcess> nodes;
    private final RedisClient admin;
    private final List<StatefulRedisConnection<String, String>> connections;

    private TestRedisCluster(List<RedisServerProcess> nodes, RedisClient admin,
                             List<StatefulRedisConnection<String, String>> connections) {
        this.nodes = nodes;
        this.admin = admin;
        this.connections = connections;
    }

    static TestRedisCluster start() throws Exception {
        Path binary = RedisServerProcess.binaryOrSkip("the Redis Cluster tests are");
        List<RedisServerProcess> nodes = new ArrayList<>();
        List<Integer> busPorts = new ArrayList<>();
        RedisClient admin = null;
        List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
        try {
            for (int i = 0; i < MASTERS; i++) {
                int port = RedisServerProcess.freePort();
                int busPort = RedisServerProcess.freePort();
                busPorts.add(busPort);
                nodes.add(RedisServerProcess.start(binary, "redis-cluster", port, List.of(), List.of(
                        "--cluster-enabled", "yes", "--cluster-port", Integer.toString(busPort),
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000")));
            }
            admin = RedisClient.create();
            for (RedisServerProcess node : nodes) {
                StatefulRedisConnection<String, String> c = admin.connect(io.lettuce.core.RedisURI.create(node.uri()));
                c.setTimeout(Duration.ofSeconds(5));
                connections.add(c);
            }
            for (int i = 0; i < MASTERS; i++) {
                int from = SLOTS * i / MASTERS;
                int to = SLOTS * (i + 1) / MASTERS;
                connections.get(i).sync().clusterAddSlots(IntStream.range(from, to).toArray());
            }
            for (int i = 1; i < MASTERS; i++) {
                // CLUSTER MEET ip port bus-port: the bus port is not the default port + 10000 here.
                connections.get(0).sync().dispatch(CommandType.CLUSTER, new StatusOutput<>(StringCodec.UTF8),
                        new CommandArgs<>(StringCodec.UTF8).add("MEET").add("127.0.0.1").add(nodes.get(i).port())
                                .add(busPorts.get(i)));
            }
            awaitFormed(connections);
            System.out.println("Redis Cluster of " + MASTERS + " masters from " + binary + " at ports "
                    + nodes.stream().map(n -> Integer.toString(n.port())).collect(Collectors.joining(", ")));
            return new TestRedisCluster(nodes, admin, connections);
        } catch (Exception | Error e) {
            connections.forEach(StatefulRedisConnection::close);
            if (admin != null) {
                admin.shutdown();
            }
            for (RedisServerProcess node : nodes) {
                node.close();
            }
            throw e;
        }
    }

    private static void awaitFormed(List<StatefulRedisConnection<String, String>> connections)
            throws InterruptedException {
        long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
        List<String> infos = List.of();
        while (System.nanoTime() < deadline) {
            infos = connections.stream().map(c -> c.sync().clusterInfo()).toList();
            if (infos.stream().allMatch(i -> i.contains("cluster_state:ok")
                    && i.contains("cluster_known_nodes:" + MASTERS) && i.contains("cluster_slots_ok:" + SLOTS))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the Redis Cluster did not form within " + FORM_TIMEOUT + ": " + infos);
    }

    /** The seeds of the cluster, as {@code idem.redis.uri} names them: {@code redis://127.0.0.1:p1,127.0.0.1:p2}. */
    String uri() {
        return "redis://" + nodes.stream().limit(2).map(n -> "127.0.0.1:" + n.port())
                .collect(Collectors.joining(","));
    }

    /** The masters' ports. */
    List<Integer> ports() {
        return nodes.stream().map(RedisServerProcess::port).toList();
    }

    /** Commands on master {@code i} alone. */
    RedisCommands<String, String> node(int i) {
        return connections.get(i).sync();
    }

    /** The master that serves {@code slot}, by the slots this fixture gave each. */
    int nodeOfSlot(int slot) {
        for (int i = 0; i < MASTERS; i++) {
            if (slot < SLOTS * (i + 1) / MASTERS) {
                return i;
            }
        }
        throw new IllegalArgumentException("no slot " + slot);
    }

    @Override
    public void close() {
        try {
            connections.forEach(StatefulRedisConnection::close);
            admin.shutdown();
        } finally {
            for (RedisServerProcess node : nodes) {
                node.close();
            }
        }
    }
}
