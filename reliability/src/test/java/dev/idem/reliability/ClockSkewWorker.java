package dev.idem.reliability;

import dev.idem.IdempotencyContext;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One JVM of the clock-skew suite ({@link ClockSkewTest}): an application whose engine's clock is the system clock
 * offset by {@code skewMillis} ({@link IdemSettings.Builder#clock}, the engine's injected clock), over the real
 * {@code jdbc} store on PostgreSQL and, when a Redis URI is given, the real {@code redis} store (each wrapped by
 * {@link ClockSkewObservedStore}, which reports its claims). It calls one idempotent operation through the
 * programmatic API when the test tells it to, on a thread per call.
 *
 * <p>Arguments {@code key=value}: {@code name}, {@code skewMillis}, {@code pg} (PostgreSQL: the ledger and the jdbc
 * records), {@code table} (jdbc records table), {@code redis} (Redis URI, optional), {@code ledger}, {@code scope},
 * {@code lease} (ms).
 *
 * <p>Commands on standard input: {@code CALL <id> <store> <key> <ttl> <body>} calls the operation on that store
 * ({@code jdbc} or {@code redis}) with argument {@code key} and that ttl; the body is {@code quick} (returns at
 * once) or {@code await} (returns when {@code FINISH <id>} arrives, failing after a minute without it). Every
 * execution first appends a row (key, worker, token, result) to the PostgreSQL ledger, so the database counts
 * executions, then reports {@code STARTED <id> <full key> <token>}.
 * {@code EXIT} closes the engine. Output: {@code READY} once warm, {@code RESULT <id> <value>} or
 * {@code ERROR <id> <exception>}, the store's {@code CLAIM ...} lines, {@code EVENT <type> <key> <token> <where>}
 * for TAKEOVER, LEASE_LOST, EXECUTED and REPLAYED ({@code <where>}: {@code store} or {@code local} for a replay),
 * {@code DONE}.
 */
public final class ClockSkewWorker {
    /** The longest an {@code await} body waits for its FINISH. */
    private static final long AWAIT_LIMIT_SECONDS = 60;
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private final String name;
    private final String pg;
    private final String ledger;
    private final IdemEngine engine;
    private final IdempotencyPolicy base;
    private final Map<String, IdempotentOperation<String>> operations = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> finishes = new ConcurrentHashMap<>();

    private ClockSkewWorker(String name, String pg, String ledger, IdemEngine engine, IdempotencyPolicy base) {
        this.name = name;
        this.pg = pg;
        this.ledger = ledger;
        this.engine = engine;
        this.base = base;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = Stream.of(args).map(s -> s.split("=", 2))
                .collect(Collectors.toMap(p -> p[0], p -> p[1]));
        Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofMillis(Long.parseLong(a.get("skewMillis"))));
        IdemSettings.Builder settings = IdemSettings.custom().namespace("reliability").clock(skewed)
                .listener(ClockSkewWorker::event);
        List<IdempotencyStore> stores = new ArrayList<>();
        stores.add(JdbcIdempotencyStore.builder(a.get("pg")).table(a.get("table")).maximumPoolSize(4).build());
        settings.store("jdbc", new ClockSkewObservedStore(stores.get(0), ClockSkewWorker::report)).defaultStore("jdbc");
        if (a.containsKey("redis")) {
            stores.add(RedisIdempotencyStore.builder(a.get("redis")).timeout(Duration.ofSeconds(10)).build());
            settings.store("redis", new ClockSkewObservedStore(stores.get(1), ClockSkewWorker::report));
        }
        IdempotencyPolicy base = IdempotencyPolicy.custom().operation("ClockSkewWorker#work").scope(a.get("scope"))
                .lease(a.get("lease") + "ms").waitTimeout("60s").build();
        ExecutorService calls = Executors.newCachedThreadPool();
        try (IdemEngine engine = IdemEngine.create(settings.build())) {
            ClockSkewWorker worker = new ClockSkewWorker(a.get("name"), a.get("pg"), a.get("ledger"), engine, base);
            for (String store : List.of("jdbc", "redis").subList(0, stores.size())) {
                // classes loaded, connections open
                worker.operation(store, "5m").call(() -> worker.quick("warm"), "warm-" + a.get("name"));
            }
            report("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
                String[] c = line.split(" ");
                switch (c[0]) {
                    case "CALL" -> calls.execute(() -> worker.call(c[1], c[2], c[3], c[4], c[5]));
                    case "FINISH" -> worker.finishes.computeIfAbsent(c[1], id -> new CountDownLatch(1)).countDown();
                    default -> throw new IllegalArgumentException("unknown command " + line);
                }
            }
            calls.shutdown();
            if (!calls.awaitTermination(AWAIT_LIMIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("calls still running at EXIT");
            }
        } finally {
            for (IdempotencyStore store : stores) {
                store.close();
            }
        }
        report("DONE");
    }

    private IdempotentOperation<String> operation(String store, String ttl) {
        return operations.computeIfAbsent(store + " " + ttl, t -> engine.operation(IdempotencyPolicy.from(base)
                .store(store).ttl(ttl).build(), String.class));
    }

    private void call(String id, String store, String key, String ttl, String body) {
        try {
            String result = operation(store, ttl).call(() -> body.equals("await") ? awaitFinish(id) : quick(id), key);
            report("RESULT " + id + " " + result);
        } catch (Exception e) {
            report("ERROR " + id + " " + e.toString().replace('\n', ' '));
        }
    }

    /** The execution: its side effect (a ledger row), then {@code STARTED}; returns the value it made. */
    private String quick(String id) throws Exception {
        String made = "made-" + name + "-" + UUID.randomUUID();
        appendToLedger(made);
        IdempotencyContext context = IdempotencyContext.current().orElseThrow();
        report("STARTED " + id + " " + context.key() + " " + context.fencingToken());
        return made;
    }

    private String awaitFinish(String id) throws Exception {
        String made = quick(id);
        if (!finishes.computeIfAbsent(id, i -> new CountDownLatch(1)).await(AWAIT_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no FINISH " + id + " within " + AWAIT_LIMIT_SECONDS + " s");
        }
        return made;
    }

    /** The execution's side effect: a row the database counts, with the key, this worker and the claim's token. */
    private void appendToLedger(String made) throws Exception {
        IdempotencyContext context = IdempotencyContext.current().orElseThrow();
        try (Connection c = DriverManager.getConnection(pg);
             PreparedStatement insert = c.prepareStatement("INSERT INTO " + ledger
                     + " (idem_key, worker, token, result) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, context.key());
            insert.setString(2, name);
            insert.setLong(3, context.fencingToken());
            insert.setString(4, made);
            insert.executeUpdate();
        }
    }

    private static void event(IdempotencyEvent e) {
        switch (e.type()) {
            case TAKEOVER, LEASE_LOST, EXECUTED -> report("EVENT " + e.type() + " " + e.key() + " " + e.fencingToken()
                    + " -");
            case REPLAYED -> report("EVENT " + e.type() + " " + e.key() + " " + e.fencingToken() + " "
                    + (e.detail().contains("store") ? "store" : "local"));
            default -> {
            }
        }
    }

    private static void report(String line) {
        OUT.println(line);
    }
}
