package dev.idem.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyContext;
import dev.idem.IdempotencyAbandonedException;
import dev.idem.IdempotencyInProgressException;
import dev.idem.IdempotencyStoreException;
import dev.idem.OnAbandoned;
import dev.idem.StoreTransaction;
import dev.idem.core.AbandonedExecution;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;
import dev.idem.core.Reconciler;
import dev.idem.core.Reconciliation;
import dev.idem.core.RetryPolicy;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.jdbc.JdbcTransactions;
import dev.idem.store.redis.RedisIdempotencyStore;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One JVM of the soak ({@link SoakTest}): {@value #THREADS} threads calling one idempotent operation (the programmatic
 * API, the engine path of an {@code @Idempotent} method) over a key space that slides with time, so that every key is
 * called by many threads of every JVM for a few seconds. Every execution appends a row to a PostgreSQL ledger (its
 * key, a fresh execution id, this worker, its incarnation, its pid and the claim's fencing token) and returns
 * {@code <key>|<execution id>}, so a caller can tell a result of its own key from any other.
 *
 * <h2>Bodies</h2>
 * Keys {@code k<i>} with {@code i % 23 == 0} always throw {@link FatalFault} (declared {@code noRetryFor}, so it is
 * recorded and replayed; in transactional mode, where remembered failures are refused, it simply rolls back); every
 * attempt of any other key throws {@link TransientFault} with probability 0.15, which the engine retries inside the
 * claim (3 attempts; in transactional mode the caller gets it); keys with {@code i % 17 == 5} go on for 1.3 leases
 * after their side effect, so only the lease heartbeat keeps them. Faults are thrown before the ledger insert: a failed execution has no side
 * effect. After {@code HANG} on standard input, the next execution blocks right after its ledger insert (before its
 * completion) and prints {@code HUNG <key> <token> <execution id>}: the test kills the JVM there, so a killed owner
 * provably held a claim whose side effect happened.
 *
 * <h2>Reports</h2>
 * Everything the test needs is appended, line by line and unbuffered, to the {@code events} file as it happens, so
 * a JVM killed with SIGKILL has reported everything up to its death: events of the engine ({@code TAKEOVER key token
 * deadPid deadToken}, {@code LEASE_LOST}, {@code INDETERMINATE}, {@code RECONCILED}, {@code EXECUTED}), what the
 * store told the engine ({@code CLAIMED} and {@code RELEASED}, from {@link ReportingStore}), each distinct result a
 * caller got ({@code SAW key executionId}), any wrong result ({@code WRONG ...}) or unexpected
 * exception ({@code UNEXPECTED ...}), and every second a {@code STATS} line of cumulative counters.
 *
 * <h2>Protocol</h2>
 * Arguments {@code key=value}: {@code store} (jdbc, redis), {@code mode} (plain, tx, reconcile), {@code pg} (the
 * ledger's PostgreSQL, direct), {@code via} (the store through the test's fault proxy: a JDBC URL or a Redis URI),
 * {@code table}, {@code ledger}, {@code scope}, {@code worker}, {@code incarnation}, {@code events},
 * {@code leaseMillis}. Prints {@code READY}; then reads {@code GO <start epoch ms> <end epoch ms>} (runs until the
 * end), {@code HANG}, and {@code FINAL <last key index>}: after the run it prints {@code DRAINED}, waits for FINAL,
 * calls every key once more (so every claim left behind is taken over), writes {@code FINAL <i> <result>} lines,
 * prints {@code DONE} and exits.
 */
public final class SoakWorker {
    static final int THREADS = 8;
    /** How many keys are live at once; the window slides by one key every {@link #STEP_MILLIS}. */
    static final int SPREAD = 64;
    static final long STEP_MILLIS = 100;
    static final String OPERATION = "SoakWorker#work";
    private static final double TRANSIENT_PROBABILITY = 0.15;
    private static final Pattern DEAD_OWNER = Pattern.compile("the lease of (\\d+)/\\S+ \\(fencing token (\\d+)\\)");
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private final Map<String, String> a;
    private final String mode;
    private final long leaseMillis;
    private final HikariDataSource ledgerPool;
    private final String ledger;
    private final Report report;
    private final AtomicBoolean hang = new AtomicBoolean();
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    /** Idempotency key to the argument key, for the events that explain themselves ({@code LEASE_LOST}, ...). */
    private final Map<String, String> argKeys = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();
    private final Map<IdempotencyEventType, LongAdder> events = new EnumMap<>(IdempotencyEventType.class);

    private SoakWorker(Map<String, String> a) throws IOException {
        this.a = a;
        this.mode = a.get("mode");
        this.leaseMillis = Long.parseLong(a.get("leaseMillis"));
        this.ledger = a.get("ledger");
        this.ledgerPool = pool(a.get("pg"), 4, "ledger");
        this.report = new Report(a.get("events"));
        for (IdempotencyEventType type : IdempotencyEventType.values()) {
            events.put(type, new LongAdder());
        }
    }

    /** The body's failure recorded for the ttl and replayed ({@code noRetryFor}). */
    public static final class FatalFault extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public FatalFault(String message) {
            super(message);
        }
    }

    /** A failure worth another attempt: the engine retries it inside the claim. */
    public static final class TransientFault extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public TransientFault(String message) {
            super(message);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = Stream.of(args).map(s -> s.split("=", 2))
                .collect(Collectors.toMap(p -> p[0], p -> p[1]));
        new SoakWorker(a).run();
        OUT.println("DONE");
    }

    private void run() throws Exception {
        HikariDataSource storePool = null;
        IdemSettings.Builder settings = IdemSettings.custom().namespace("reliability").listener(this::onEvent)
                .completionRetry(3, Duration.ofMillis(50));
        IdempotencyStore store;
        if (a.get("store").equals("jdbc")) {
            // tx: every thread holds a connection for its whole transaction (claim, body, completion)
            storePool = pool(a.get("via"), mode.equals("tx") ? THREADS : 5, "store");
            store = jdbcStore(storePool, a.get("table"));
        } else {
            store = redisStore(a.get("via"));
        }
        store = new ReportingStore(store, report::line);
        settings.store(a.get("store"), store).defaultStore(a.get("store"));
        IdempotencyPolicy.Builder policy = IdempotencyPolicy.custom().operation(OPERATION).scope(a.get("scope"))
                .lease(Duration.ofMillis(leaseMillis)).ttl("10m").waitTimeout("12s");
        if (mode.equals("tx")) {
            policy.storeTransaction(StoreTransaction.REQUIRED);
        } else {
            policy.noRetryFor(FatalFault.class).retry(RetryPolicy.custom().maxAttempts(3).base("10ms").cap("50ms")
                    .on(TransientFault.class).build());
        }
        if (mode.equals("reconcile")) {
            policy.onAbandoned(OnAbandoned.RECONCILE);
            settings.reconciler(new LedgerReconciler());
        }
        try (IdemEngine engine = IdemEngine.create(settings.build())) {
            IdempotentOperation<String> op = warmUp(engine, policy.build());
            Commands commands = new Commands();
            OUT.println("READY");
            commands.go.await(5, TimeUnit.MINUTES);
            Thread stats = new Thread(this::reportStatsEverySecond, "stats");
            stats.setDaemon(true);
            stats.start();
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Thread caller = new Thread(() -> callUntil(op, commands.start, commands.end), "caller-" + t);
                caller.start();
                callers.add(caller);
            }
            for (Thread caller : callers) {
                caller.join(TimeUnit.MINUTES.toMillis(2));
            }
            report.line(stats());
            OUT.println("DRAINED");
            if (!commands.fin.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("no FINAL");
            }
            finalPass(op, commands.lastKey);
            report.line(stats());
        } finally {
            store.close();
            if (storePool != null) {
                storePool.close();
            }
            ledgerPool.close();
        }
    }

    /** The jdbc store, which checks its table as it starts: a worker restarted during a fault tries for a while. */
    private static JdbcIdempotencyStore jdbcStore(HikariDataSource pool, String table) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return JdbcIdempotencyStore.builder(pool).table(table).build();
            } catch (IdempotencyStoreException e) {
                if (attempt == 20) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    /** The redis store, which connects as it starts: a worker restarted during a fault tries for a while. */
    private static RedisIdempotencyStore redisStore(String uri) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return RedisIdempotencyStore.builder(uri).build();
            } catch (RuntimeException e) {
                if (attempt == 20) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    /**
     * The operation, once a call of its own went through: classes loaded, connections open. A restarted worker may
     * start while a fault is on, so it tries for a while.
     */
    private static IdempotentOperation<String> warmUp(IdemEngine engine, IdempotencyPolicy policy)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                IdempotentOperation<String> op = engine.operation(policy, String.class);
                op.call(() -> "warm", "warm-" + ProcessHandle.current().pid());
                return op;
            } catch (IdempotencyStoreException e) {
                if (attempt == 10) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    /** The calls of one thread until {@code end}: keys from the window of the moment. */
    private void callUntil(IdempotentOperation<String> op, long start, long end) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (System.currentTimeMillis() < end) {
            long window = Math.max(0, (System.currentTimeMillis() - start) / STEP_MILLIS);
            String key = "k" + (window + random.nextInt(SPREAD));
            count("calls");
            try {
                String result = op.call(() -> work(key), key);
                check(key, result);
            } catch (FatalFault | TransientFault e) {
                checkFailure(key, e);
            } catch (IdempotencyStoreException | IdempotencyInProgressException | IdempotencyAbandonedException e) {
                count("failedClosed"); // the store down, the key held too long, a reconciliation that failed
                count("failedClosed." + e.getClass().getSimpleName());
            } catch (SQLException e) {
                // The body's own ledger write failed, before its side effect (plain: PostgreSQL slow to give a
                // connection; tx: the write goes through the store's transaction, whose connection a fault cut). The
                // body threw, so the engine released the claim and rethrew it unchanged: a retry may run it.
                count("bodyFailed.SQLException");
            } catch (Exception e) { // a conflict, a failure replayed as another type: never expected here
                unexpected(key, e);
            }
        }
    }

    /** Every key once more, until it answers, so that every claim left behind is taken over or replayed. */
    private void finalPass(IdempotentOperation<String> op, int lastKey) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int first = t;
            Thread thread = new Thread(() -> {
                for (int i = first; i <= lastKey; i += THREADS) {
                    report.line("FINAL " + i + " " + settle(op, "k" + i));
                }
            }, "final-" + t);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.MINUTES.toMillis(3));
        }
    }

    private String settle(IdempotentOperation<String> op, String key) {
        Exception last = null;
        for (int attempt = 0; attempt < 8; attempt++) {
            count("finalCalls");
            try {
                String result = op.call(() -> work(key), key);
                check(key, result);
                return result;
            } catch (FatalFault e) {
                checkFailure(key, e);
                return "FATAL";
            } catch (TransientFault | IdempotencyStoreException | IdempotencyInProgressException
                     | IdempotencyAbandonedException | SQLException e) {
                last = e; // another attempt; the faults are over, so this ends
            } catch (Exception e) {
                unexpected(key, e);
                return "ERROR";
            }
        }
        return "ERROR " + last;
    }

    /** The body: fails, or takes its time, then appends to the ledger and returns a result naming its key. */
    private String work(String key) throws Exception {
        IdempotencyContext context = IdempotencyContext.current().orElseThrow();
        argKeys.put(context.key(), key);
        int index = Integer.parseInt(key.substring(1));
        if (index % 23 == 0) {
            throw new FatalFault(key + " refused for good (token " + context.fencingToken() + ")");
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextDouble() < TRANSIENT_PROBABILITY) {
            throw new TransientFault(key + " failed for now (token " + context.fencingToken() + ")");
        }
        Thread.sleep(5 + random.nextInt(20));
        String execution = UUID.randomUUID().toString();
        if (mode.equals("tx")) {
            insert(JdbcTransactions.connection(), context, key, execution);
        } else {
            try (Connection c = ledgerPool.getConnection()) {
                insert(c, context, key, execution);
            }
        }
        if (hang.compareAndSet(true, false)) {
            OUT.println("HUNG " + key + " " + context.fencingToken() + " " + execution);
            Thread.sleep(TimeUnit.MINUTES.toMillis(2)); // killed here; the bound only ends a test that forgot to
        }
        if (index % 17 == 5) {
            // Work that goes on after the side effect, 1.3 leases long: only the heartbeat keeps the claim. Were the
            // lease lost meanwhile, a reconciler would find the side effect, and the owner reports LEASE_LOST.
            Thread.sleep(leaseMillis * 13 / 10);
        }
        return key + "|" + execution;
    }

    private void insert(Connection c, IdempotencyContext context, String key, String execution) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + ledger
                + " (idem_key, arg_key, execution, worker, incarnation, pid, token) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, context.key());
            insert.setString(2, key);
            insert.setString(3, execution);
            insert.setInt(4, Integer.parseInt(a.get("worker")));
            insert.setInt(5, Integer.parseInt(a.get("incarnation")));
            insert.setLong(6, ProcessHandle.current().pid());
            insert.setLong(7, context.fencingToken());
            insert.executeUpdate();
        }
    }

    /** A result must name the caller's key; each distinct one is reported, so the test finds it in the ledger. */
    private void check(String key, String result) {
        if (result == null || !result.startsWith(key + "|")) {
            count("wrong");
            report.line("WRONG " + key + " got " + result);
            return;
        }
        count("ok");
        if (seen.add(result)) {
            report.line("SAW " + key + " " + result.substring(key.length() + 1));
        }
    }

    private void checkFailure(String key, RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        if (!message.startsWith(key + " ")) {
            count("wrong");
            report.line("WRONG " + key + " got " + e.getClass().getSimpleName() + ": " + message);
        } else {
            count(e instanceof FatalFault ? "fatal" : "transient");
        }
    }

    private void unexpected(String key, Exception e) {
        count("unexpected");
        report.line("UNEXPECTED " + key + " " + e.toString().replace('\n', ' '));
        e.printStackTrace();
    }

    private void onEvent(IdempotencyEvent e) {
        events.get(e.type()).increment();
        switch (e.type()) {
            case TAKEOVER -> {
                Matcher m = DEAD_OWNER.matcher(e.detail());
                report.line(m.find() ? "TAKEOVER " + e.key() + " " + e.fencingToken() + " " + m.group(1) + " "
                        + m.group(2) : "UNPARSED " + e.key() + " " + e.fencingToken() + " " + e.detail());
            }
            case LEASE_LOST, INDETERMINATE, ABANDONED -> // with what the test prints when it explains them
                    report.line(e.type() + " " + e.key() + " " + e.fencingToken() + " " + argKeys.get(e.key()) + " "
                            + java.time.Instant.now() + " " + e.detail() + (e.cause() == null ? "" : " (" + e.cause() + ")"));
            case RECONCILED, EXECUTED -> report.line(e.type() + " " + e.key() + " " + e.fencingToken());
            default -> {
            }
        }
    }

    private void count(String what) {
        counters.computeIfAbsent(what, w -> new LongAdder()).increment();
    }

    private String stats() {
        StringBuilder line = new StringBuilder("STATS");
        counters.forEach((what, n) -> line.append(' ').append(what).append('=').append(n.sum()));
        events.forEach((type, n) -> line.append(" event.").append(type).append('=').append(n.sum()));
        return line.toString();
    }

    private void reportStatsEverySecond() {
        while (true) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            report.line(stats());
        }
    }

    private static HikariDataSource pool(String url, int size, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0); // connections dropped by a fault are not re-opened eagerly
        config.setConnectionTimeout(5000);
        config.setValidationTimeout(1000);
        config.setPoolName(name);
        for (int attempt = 1; ; attempt++) {
            try {
                return new HikariDataSource(config); // opens its first connection, or throws
            } catch (RuntimeException e) {
                if (attempt == 20) {
                    throw e;
                }
                try {
                    Thread.sleep(500); // a worker restarted during a fault: the fault ends within seconds
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** RECONCILE: the work happened iff the ledger holds a row of the key; its answer is that row's result. */
    private final class LedgerReconciler implements Reconciler {
        @Override
        public boolean reconciles(String operation) {
            return OPERATION.equals(operation);
        }

        @Override
        public Reconciliation reconcile(AbandonedExecution abandoned) throws SQLException {
            try (Connection c = ledgerPool.getConnection();
                 PreparedStatement select = c.prepareStatement("SELECT arg_key, execution FROM " + ledger
                         + " WHERE idem_key = ? ORDER BY token LIMIT 1")) {
                select.setString(1, abandoned.key());
                try (ResultSet rs = select.executeQuery()) {
                    return rs.next() ? Reconciliation.happened(rs.getString(1) + "|" + rs.getString(2))
                            : Reconciliation.didNotHappen();
                }
            }
        }
    }

    /** What the test writes on standard input. */
    private final class Commands {
        final CountDownLatch go = new CountDownLatch(1);
        final CountDownLatch fin = new CountDownLatch(1);
        volatile long start;
        volatile long end;
        volatile int lastKey;

        Commands() {
            Thread reader = new Thread(this::read, "commands");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    String[] parts = line.split(" ");
                    switch (parts[0]) {
                        case "GO" -> {
                            start = Long.parseLong(parts[1]);
                            end = Long.parseLong(parts[2]);
                            go.countDown();
                        }
                        case "HANG" -> hang.set(true);
                        case "FINAL" -> {
                            lastKey = Integer.parseInt(parts[1]);
                            fin.countDown();
                        }
                        default -> throw new IllegalStateException("unknown command " + line);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Appends lines to the events file unbuffered: each line reaches the kernel before the next one is made. */
    private static final class Report {
        private final FileOutputStream out;

        Report(String path) throws IOException {
            this.out = new FileOutputStream(path, true);
        }

        synchronized void line(String line) {
            try {
                out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
