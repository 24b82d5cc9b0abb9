package dev.idem.reliability;

import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.testsupport.ChildJvm;
import dev.idem.testsupport.RedisServerProcess;
import dev.idem.testsupport.TestPostgres;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.TestAbortedException;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Workers whose JVM clocks are minutes apart, over a store that keeps its server's time (SEMANTICS.md section 4,
 * {@link IdempotencyStore}'s "Time"). Three worker JVMs ({@link ClockSkewWorker}), each engine on the system clock
 * offset by {@link #BEHIND} (B), zero (Z) or {@link #AHEAD} (A), share the stores under test: the {@code jdbc} store
 * on PostgreSQL and the {@code redis} store on a redis-server the test starts ({@link RedisServerProcess}; without
 * one on the PATH the Redis half is skipped and says so). Each step below is taken for every store, on keys of its
 * own, before the next step, so one SIGKILL or SIGSTOP serves both and the JVMs start once. The lease is
 * {@value #LEASE_MS} ms. Every execution appends a row to a PostgreSQL ledger, so the database counts executions. In
 * order:
 * <ol>
 *   <li><b>Replay</b>: B runs a key with ttl 5 minutes; A, whose clock is already past the record's expiry, calls it
 *       twice and Z once: all get B's result, A's first from the store (which says the record is live) and its
 *       second from its local result cache (the copy's expiry moved onto A's clock: it lasts as long as the record
 *       by the server's clock, however far ahead A is), and the ledger holds one row.</li>
 *   <li><b>Expired</b>: Z runs a key with ttl {@value #SHORT_TTL}; B (behind) replays it from the store, then from its
 *       local result cache. Once the record expired by the server's clock (B's clock is still minutes before the
 *       record's expiresAt), A's call runs it again, and B's next call returns A's new result from the store: B's
 *       local copy lasted as long as the record by the server's clock, not by B's. The ledger holds Z's row and
 *       A's.</li>
 *   <li><b>Held</b>: B (behind) runs an execution until the server's clock is three leases past its start; A (ahead)
 *       and Z wait on the key meanwhile, claiming again and again. Nobody takes it over: A's claims still lose three
 *       leases in (the heartbeat renewed the lease by the server's clock), all get B's result, one ledger row.</li>
 *   <li><b>Killed</b>: Z holds a key and is killed (SIGKILL) while A and B wait on it. The key is taken over once, by
 *       A or B: the takeover claim's time by the server's clock (read back from the record it wrote) is never before
 *       the dead owner's lease end and at most {@link #LATE_BOUND_MS} ms after it; the other caller replays the
 *       taker's result; the ledger holds the dead owner's row and the taker's.</li>
 *   <li><b>Fenced</b>: A (ahead) holds a key and is frozen (SIGSTOP, a pause as long as a GC stall or a suspended
 *       VM); B (behind) takes the key over once A's lease passed by the server's clock, within the same bounds. A is
 *       continued and its execution finishes: its completion is refused (LEASE_LOST in A), A's caller still gets A's
 *       value (SEMANTICS.md section 5), the store keeps B's result, and A's next call replays B's.</li>
 * </ol>
 * Every wait has a deadline. Every time the test measures or compares is the store server's (the record's stamps,
 * PostgreSQL's {@code clock_timestamp()}, Redis's {@code TIME}); the test JVM's own clock only bounds the waits.
 */
class ClockSkewTest {
    static final long LEASE_MS = 2_000;
    static final Duration BEHIND = Duration.ofMinutes(-5);
    static final Duration AHEAD = Duration.ofMinutes(7);
    static final String TTL = "5m";
    /** The ttl of the expiry step: a few seconds, so the step waits that long for the server's clock. */
    static final String SHORT_TTL = "3s";
    /**
     * How long after the dead owner's lease end a takeover may come. Waiters claim again at least every
     * {@code idem.waitRecheck} (1 s; jdbc polls every 200 ms at most), so the takeover comes about that long after
     * the lease end; the bound leaves room for a loaded machine. A taker that judged the lease by its own clock
     * 5 minutes behind would come 5 minutes late (and give up after its 60 s wait).
     */
    static final long LATE_BOUND_MS = 10_000;
    private static final Duration WAIT = Duration.ofSeconds(75); // longer than the workers' waitTimeout (60 s)

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void leasesAndResultsFollowTheServersClockOnPostgresAndRedis() throws Exception {
        String pg = TestPostgres.url();
        String table = "idem_rel_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String ledger = table + "_ledger";
        RedisServerProcess redis = startRedisUnlessAbsent();
        RedisClient client = null;
        try (JdbcIdempotencyStore jdbc = JdbcIdempotencyStore.builder(pg).table(table).createTable(true)
                .maximumPoolSize(2).build()) {
            createLedger(pg, ledger);
            List<String> storeArgs = new ArrayList<>(List.of("table=" + table));
            if (redis != null) {
                storeArgs.add("redis=" + redis.uri());
            }
            // The workers boot (the slowest part on a busy machine) while this JVM opens its own connections.
            try (Run run = new Run(pg, ledger, storeArgs)) {
                Target postgres = new Target("jdbc", jdbc, () -> postgresNow(pg));
                if (redis == null) {
                    run.all(List.of(postgres));
                } else {
                    client = RedisClient.create(redis.uri());
                    try (StatefulRedisConnection<String, String> time = client.connect();
                         RedisIdempotencyStore redisStore = RedisIdempotencyStore.builder(redis.uri())
                                 .timeout(Duration.ofSeconds(10)).build()) {
                        run.all(List.of(postgres, new Target("redis", redisStore, () -> {
                            List<String> t = time.sync().time(); // seconds, microseconds
                            return Long.parseLong(t.get(0)) * 1_000 + Long.parseLong(t.get(1)) / 1_000;
                        })));
                    }
                }
            }
        } finally {
            if (client != null) {
                client.shutdown();
            }
            if (redis != null) {
                redis.close();
            }
            try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                s.execute("DROP SEQUENCE IF EXISTS " + table + "_tokens");
                s.execute("DROP TABLE IF EXISTS " + ledger);
            }
        }
    }

    /** The test's own redis-server, or null (the Redis half is skipped, and says so) when none is on the PATH. */
    private static RedisServerProcess startRedisUnlessAbsent() throws Exception {
        try {
            return RedisServerProcess.start("the reliability suite's Redis tests are");
        } catch (TestAbortedException noRedisServer) {
            return null; // RedisServerProcess printed why; PostgreSQL is still tested
        }
    }

    /** A store under test: its name in the workers, an instance of the test's own to read records, its server's now. */
    private record Target(String name, IdempotencyStore store, LongSupplier serverNow) {
    }

    /**
     * One run of the four scenarios with one set of three workers, over every store at once: each step is taken for
     * every store before the next (each store's calls on keys of its own), so one SIGKILL or SIGSTOP serves both.
     */
    private static final class Run implements AutoCloseable {
        final String pg;
        final String ledger;
        final List<String> storeArgs;
        final String scope = "reliability:skew-" + UUID.randomUUID();
        final List<String> figures = new ArrayList<>();
        private final List<String> laps = new ArrayList<>();
        private final long began = System.nanoTime();
        private long lapStart = began;
        List<Target> targets;
        ChildJvm behind;
        ChildJvm zero;
        ChildJvm ahead;

        /** Starts the three workers; {@link #all} waits until they are ready. */
        Run(String pg, String ledger, List<String> storeArgs) throws Exception {
            this.pg = pg;
            this.ledger = ledger;
            this.storeArgs = storeArgs;
            try {
                behind = start("B", BEHIND);
                zero = start("Z", Duration.ZERO);
                ahead = start("A", AHEAD);
            } catch (Exception e) {
                close();
                throw e;
            }
        }

        void all(List<Target> targets) throws Exception {
            this.targets = targets;
            for (ChildJvm w : List.of(behind, zero, ahead)) {
                // three JVMs booting on a busy 2-core machine took 64 s
                w.awaitPrefix("READY", Duration.ofSeconds(150));
            }
            lap("workers ready");
            replay();
            lap("replay");
            expired();
            lap("expired");
            held();
            lap("held");
            killed();
            lap("killed");
            fenced();
            lap("fenced");
            behind.exit(WAIT);
            ahead.exit(WAIT);
            lap("exit");
            System.out.printf(Locale.ROOT, "SKEW stores %s: clocks B %s, Z 0, A %s; lease %d ms; %d s in all (%s)%n"
                            + "  %s%n", targets.stream().map(Target::name).toList(), BEHIND, AHEAD, LEASE_MS,
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began), String.join(", ", laps),
                    String.join("\n  ", figures));
        }

        @Override
        public void close() {
            for (ChildJvm w : new ChildJvm[] {behind, zero, ahead}) {
                if (w != null) {
                    w.close();
                }
            }
        }

        private void lap(String what) {
            long now = System.nanoTime();
            laps.add(what + " " + TimeUnit.NANOSECONDS.toMillis(now - lapStart) + " ms");
            lapStart = now;
        }

        private ChildJvm start(String name, Duration skew) throws Exception {
            List<String> args = new ArrayList<>(List.of("name=" + name, "skewMillis=" + skew.toMillis(), "pg=" + pg,
                    "ledger=" + ledger, "scope=" + scope, "lease=" + LEASE_MS));
            args.addAll(storeArgs);
            // 512 KiB thread stacks: the deepest of the workers needs no more.
            return ChildJvm.of(ClockSkewWorker.class).name(name)
                    .jvmOptions("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                    .args(args.toArray(String[]::new)).start();
        }

        /** A completed result replays everywhere for its ttl by the server's clock, whatever each JVM's clock says. */
        void replay() throws Exception {
            for (Target t : targets) {
                call(behind, t, "r1", "replay", "quick");
            }
            for (Target t : targets) {
                String key = started(behind, t, "r1")[0];
                String made = result(behind, t, "r1");
                for (String id : List.of("r2", "r3")) {
                    call(ahead, t, id, "replay", "quick");
                    assertEquals(made, result(ahead, t, id), t.name + ": A replays B's result");
                }
                call(zero, t, "r4", "replay", "quick");
                assertEquals(made, result(zero, t, "r4"), t.name + ": Z replays B's result");

                IdempotencyRecord record = t.store.get(key).orElseThrow();
                long aheadClock = t.serverNow.getAsLong() + AHEAD.toMillis();
                assertTrue(aheadClock > record.expiresAt().toEpochMilli(), "A's clock is past the record's expiry");
                assertEquals(1, events(ahead, "REPLAYED", key, "store"), t.name + ": A's first call read the store,"
                        + " which says the record is live, and replayed; " + ahead);
                assertEquals(1, events(ahead, "REPLAYED", key, "local"), t.name + ": A's second call replayed its"
                        + " copy, kept by the server's clock although A's is past the record's expiresAt; " + ahead);
                assertEquals(0, events(ahead, "EXECUTED", key, "-"), t.name + ": A never ran it");
                assertEquals(1, events(zero, "REPLAYED", key, "store"), t.name + ": Z's call replayed from the store");
                assertEquals(List.of("B " + record.fencingToken()), ledger(key), t.name + ": one execution, B's");
                figures.add(String.format(Locale.ROOT, "%s replay: ttl %s; A's clock %d s past the record's expiry;"
                                + " A's first call and Z's replayed from the store, A's second from its copy;"
                                + " executions 1", t.name, TTL,
                        (aheadClock - record.expiresAt().toEpochMilli()) / 1_000));
            }
        }

        /**
         * B, 5 minutes behind, replays Z's result from the store and then from its own cache, and stops replaying its
         * copy once the record expired by the server's clock: B's next call after A ran the key again gets A's new
         * result. (A, not Z, runs it again: A holds no copy of its own, so nothing but the store decides its call.)
         */
        void expired() throws Exception {
            for (Target t : targets) {
                call(zero, t, "e1", "expiring", "quick", SHORT_TTL);
            }
            List<String> keys = new ArrayList<>();
            List<Long> expiries = new ArrayList<>();
            for (Target t : targets) {
                String key = started(zero, t, "e1")[0];
                String first = result(zero, t, "e1");
                keys.add(key);
                expiries.add(t.store.get(key).orElseThrow().expiresAt().toEpochMilli());
                call(behind, t, "e2", "expiring", "quick", SHORT_TTL);
                assertEquals(first, result(behind, t, "e2"), t.name + ": B replays Z's result");
                call(behind, t, "e3", "expiring", "quick", SHORT_TTL);
                assertEquals(first, result(behind, t, "e3"), t.name + ": B replays Z's result again");
                assertEquals(1, events(behind, "REPLAYED", key, "store"), t.name + ": B's first replay read the store");
                assertEquals(1, events(behind, "REPLAYED", key, "local"), t.name + ": B's second replay is its own"
                        + " copy; " + behind);
            }
            for (int i = 0; i < targets.size(); i++) {
                Target t = targets.get(i);
                String key = keys.get(i);
                long expiresAt = expiries.get(i);
                awaitServerTime(t, expiresAt + 1);
                long behindClock = t.serverNow.getAsLong() + BEHIND.toMillis();
                assertTrue(behindClock < expiresAt, "B's clock is still before the record's expiry");
                call(ahead, t, "e4", "expiring", "quick", SHORT_TTL);
                String second = result(ahead, t, "e4");
                assertNotEquals(result(zero, t, "e1"), second, t.name + ": A ran the expired key again");
                call(behind, t, "e5", "expiring", "quick", SHORT_TTL);
                assertEquals(second, result(behind, t, "e5"), t.name + ": B's copy ended with the record by the"
                        + " server's clock, so B replays A's new result, not its old copy; " + behind);
                assertEquals(2, events(behind, "REPLAYED", key, "store"), t.name + ": B read the store again");
                assertEquals(1, events(behind, "REPLAYED", key, "local"), t.name + ": B's old copy was not replayed"
                        + " after the expiry; " + behind);
                List<String> rows = ledger(key);
                assertEquals(2, rows.size(), t.name + ": Z's execution and A's: " + rows);
                assertTrue(rows.get(0).startsWith("Z ") && rows.get(1).startsWith("A "), t.name + ": " + rows);
                figures.add(String.format(Locale.ROOT, "%s expired: ttl %s; B's local copy ended with the record by"
                                + " the server's clock, %d s before B's clock reached the record's expiresAt;"
                                + " executions 2 (Z's, then A's after the expiry)", t.name, SHORT_TTL,
                        (expiresAt - behindClock) / 1_000));
            }
        }

        /** B, 5 minutes behind, runs three leases long; A, 7 minutes ahead, and Z wait and never take it over. */
        void held() throws Exception {
            int aheadFrom = ahead.mark();
            int zeroFrom = zero.mark();
            List<String> keys = new ArrayList<>();
            List<Long> tokens = new ArrayList<>();
            List<Long> threeLeases = new ArrayList<>();
            for (Target t : targets) {
                call(behind, t, "h1", "held", "await");
            }
            for (Target t : targets) {
                String[] started = started(behind, t, "h1");
                keys.add(started[0]);
                tokens.add(Long.parseLong(started[1]));
                threeLeases.add(t.store.get(started[0]).orElseThrow().startedAt().toEpochMilli() + 3 * LEASE_MS);
                call(ahead, t, "h2", "held", "quick");
                call(zero, t, "h3", "held", "quick");
            }
            for (int i = 0; i < targets.size(); i++) {
                Target t = targets.get(i);
                String key = keys.get(i);
                awaitServerTime(t, threeLeases.get(i));
                // Claims made from now on come three leases after the start: they lose only to a renewed lease.
                for (ChildJvm w : List.of(ahead, zero)) {
                    assertEquals(0, claims(w, w == ahead ? aheadFrom : zeroFrom, key, "ACQUIRED"), t.name + ": "
                            + w.name() + " took over a live owner's claim; " + w);
                    String late = w.await(l -> l.startsWith("CLAIM " + key + " "), w.mark(), WAIT, t.name
                            + " claim of " + key + " after 3 leases");
                    assertTrue(late.startsWith("CLAIM " + key + " LOST "), t.name + ": " + w.name() + " took over a"
                            + " live owner's claim: " + late);
                    String[] p = late.split(" ");
                    assertEquals(tokens.get(i), Long.parseLong(p[3]), late);
                    assertTrue(Long.parseLong(p[5]) > threeLeases.get(i), t.name + ": the lease was renewed by the"
                            + " server's clock: " + late);
                }
                behind.send("FINISH " + id(t, "h1"));
            }
            for (int i = 0; i < targets.size(); i++) {
                Target t = targets.get(i);
                String key = keys.get(i);
                long token = tokens.get(i);
                String made = result(behind, t, "h1");
                assertEquals(made, result(ahead, t, "h2"), t.name + ": A waited for B's result");
                assertEquals(made, result(zero, t, "h3"), t.name + ": Z waited for B's result");

                IdempotencyRecord record = t.store.get(key).orElseThrow();
                assertEquals(RecordState.COMPLETED, record.state());
                assertEquals(token, record.fencingToken(), t.name + ": completed under B's claim, never taken over");
                long ranFor = record.completedAt().toEpochMilli() - record.startedAt().toEpochMilli();
                assertTrue(ranFor >= 3 * LEASE_MS, t.name + ": ran " + ranFor + " ms by the server's clock");
                for (ChildJvm w : List.of(behind, zero, ahead)) {
                    assertEquals(0, events(w, "TAKEOVER", key, "-"), t.name + ": " + w.name() + " took nothing over");
                }
                assertEquals(List.of("B " + token), ledger(key), t.name + ": one execution, B's");
                assertEquals(0, claims(ahead, aheadFrom, key, "ACQUIRED") + claims(zero, zeroFrom, key, "ACQUIRED"));
                figures.add(String.format(Locale.ROOT, "%s held: B's execution ran %d ms (%.1f leases) by the"
                                + " server's clock; claims that lost to it: A %d, Z %d; takeovers 0; executions 1",
                        t.name, ranFor, (double) ranFor / LEASE_MS, claims(ahead, aheadFrom, key, "LOST"),
                        claims(zero, zeroFrom, key, "LOST")));
            }
        }

        /**
         * Z is killed holding a key; A (ahead) and B (behind) race for it: one takeover, after the lease, not long
         * after.
         */
        void killed() throws Exception {
            int aheadFrom = ahead.mark();
            int behindFrom = behind.mark();
            List<String> keys = new ArrayList<>();
            List<Long> tokens = new ArrayList<>();
            for (Target t : targets) {
                call(zero, t, "k1", "killed", "await");
            }
            for (Target t : targets) {
                String[] started = started(zero, t, "k1");
                keys.add(started[0]);
                tokens.add(Long.parseLong(started[1]));
                call(ahead, t, "k2", "killed", "quick");
                call(behind, t, "k3", "killed", "quick");
            }
            for (String key : keys) {
                ahead.await(lost(key), aheadFrom, WAIT, "claim of " + key + " lost to Z");
                behind.await(lost(key), behindFrom, WAIT, "claim of " + key + " lost to Z");
            }
            zero.kill();
            for (int i = 0; i < targets.size(); i++) {
                Target t = targets.get(i);
                String key = keys.get(i);
                long dead = tokens.get(i);
                String byA = result(ahead, t, "k2");
                String byB = result(behind, t, "k3");
                assertEquals(byA, byB, t.name + ": both callers got the one takeover's result");
                List<String> acquired = new ArrayList<>();
                for (ChildJvm w : List.of(ahead, behind)) {
                    List<String> all = w.lines();
                    for (String line : all.subList(w == ahead ? aheadFrom : behindFrom, all.size())) {
                        if (line.startsWith("CLAIM " + key + " ACQUIRED ")) {
                            acquired.add(w.name() + " " + line);
                        }
                    }
                }
                assertEquals(1, acquired.size(), t.name + ": taken over exactly once: " + acquired);
                String taker = acquired.get(0).substring(0, 1);
                long delay = assertTakeover(t, acquired.get(0), dead);
                assertEquals(1, events(ahead, "TAKEOVER", key, "-") + events(behind, "TAKEOVER", key, "-"));
                IdempotencyRecord record = t.store.get(key).orElseThrow();
                assertEquals(List.of("Z " + dead, taker + " " + record.fencingToken()), ledger(key),
                        t.name + ": the dead owner's execution and the one takeover's");
                figures.add(String.format(Locale.ROOT, "%s killed: Z killed holding the key; taken over once, by %s,"
                                + " %d ms after the dead lease's end by the server's clock; executions 2 (the dead"
                                + " owner's, the takeover's)", t.name, taker.equals("A") ? "A (ahead)" : "B (behind)",
                        delay));
            }
        }

        /**
         * A (ahead) is frozen holding a key; B (behind) takes it over after the lease; A, continued, finishes late:
         * fenced off.
         */
        void fenced() throws Exception {
            int behindFrom = behind.mark();
            List<String> keys = new ArrayList<>();
            List<Long> stale = new ArrayList<>();
            List<String> taken = new ArrayList<>();
            for (Target t : targets) {
                call(ahead, t, "s1", "fenced", "await");
            }
            for (Target t : targets) {
                String[] started = started(ahead, t, "s1");
                keys.add(started[0]);
                stale.add(Long.parseLong(started[1]));
            }
            int aheadFrom;
            ahead.freeze();
            try {
                for (Target t : targets) {
                    call(behind, t, "s2", "fenced", "quick");
                }
                for (Target t : targets) {
                    taken.add(result(behind, t, "s2"));
                }
                aheadFrom = ahead.mark();
            } finally {
                ahead.thaw();
            }
            for (int i = 0; i < targets.size(); i++) {
                ahead.send("FINISH " + id(targets.get(i), "s1"));
            }
            for (int i = 0; i < targets.size(); i++) {
                Target t = targets.get(i);
                String key = keys.get(i);
                String[] acquired = behind.await(l -> l.startsWith("CLAIM " + key + " ACQUIRED "), behindFrom, WAIT,
                        "the takeover claim").split(" ");
                long delay = assertTakeover(t, "B " + String.join(" ", acquired), stale.get(i));
                long token = Long.parseLong(acquired[3]);
                String late = result(ahead, t, "s1");
                assertNotEquals(taken.get(i), late, t.name + ": A's own caller gets A's value (the work happened)");
                String lostLease = "EVENT LEASE_LOST " + key + " " + stale.get(i) + " ";
                ahead.await(l -> l.startsWith(lostLease), aheadFrom, WAIT, "LEASE_LOST of the fenced claim");
                IdempotencyRecord record = t.store.get(key).orElseThrow();
                assertEquals(RecordState.COMPLETED, record.state());
                assertEquals(token, record.fencingToken(), t.name + ": the store kept B's completion; A's late one"
                        + " was refused");
                call(ahead, t, "s3", "fenced", "quick");
                assertEquals(taken.get(i), result(ahead, t, "s3"), t.name + ": A's next call replays B's stored"
                        + " result, not its own");
                assertEquals(0, events(ahead, "EXECUTED", key, "-"), t.name + ": A's completion never landed");
                assertEquals(List.of("A " + stale.get(i), "B " + token), ledger(key), t.name + ": A's late execution"
                        + " and B's");
                figures.add(String.format(Locale.ROOT, "%s fenced: A frozen holding the key; B (behind) took it over"
                        + " %d ms after A's lease end by the server's clock; A's late completion refused (LEASE_LOST);"
                        + " the store and A's next call have B's result; executions 2", t.name, delay));
            }
        }

        /**
         * Checks a takeover claim ({@code <worker> CLAIM <key> ACQUIRED <token> <at> <replaced token> <replaced
         * lease end>}) against the server's clock; returns its delay after the lease end in ms.
         */
        private static long assertTakeover(Target t, String line, long deadToken) {
            String[] p = line.split(" ");
            long token = Long.parseLong(p[4]);
            long claimedAt = Long.parseLong(p[5]);
            assertEquals(Long.toString(deadToken), p[6], t.name + ": the takeover replaced the dead claim: " + line);
            long leaseEnd = Long.parseLong(p[7]);
            assertTrue(token > deadToken, t.name + ": a larger fencing token: " + line);
            assertTrue(claimedAt > 0, t.name + ": the claim's own time was read back: " + line);
            assertTrue(claimedAt >= leaseEnd, t.name + ": never before the lease's end by the server's clock: " + line);
            assertTrue(claimedAt - leaseEnd <= LATE_BOUND_MS, t.name + ": at most " + LATE_BOUND_MS + " ms after"
                    + " it: " + line);
            return claimedAt - leaseEnd;
        }

        private static void awaitServerTime(Target t, long atLeast) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (t.serverNow.getAsLong() < atLeast) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(t.name + ": the server's clock did not reach " + atLeast + " within "
                            + WAIT);
                }
                Thread.sleep(20);
            }
        }

        private static Predicate<String> lost(String key) {
            return l -> l.startsWith("CLAIM " + key + " LOST ");
        }

        /** A call's id in the workers: one per store. */
        private static String id(Target t, String call) {
            return call + "-" + t.name;
        }

        /** Calls {@code key} (one per store) on the target's store. */
        private static void call(ChildJvm worker, Target t, String call, String key, String body)
                throws Exception {
            call(worker, t, call, key, body, TTL);
        }

        /** Calls {@code key} (one per store) on the target's store, with that ttl. */
        private static void call(ChildJvm worker, Target t, String call, String key, String body, String ttl)
                throws Exception {
            worker.send("CALL " + id(t, call) + " " + t.name + " " + key + "-" + t.name + " " + ttl + " " + body);
        }

        /** {@code [full key, token]} of the execution started by call {@code id}. */
        private static String[] started(ChildJvm worker, Target t, String call) throws InterruptedException {
            String[] p = worker.awaitPrefix("STARTED " + id(t, call) + " ", WAIT).split(" ");
            return new String[] {p[2], p[3]};
        }

        private static String result(ChildJvm worker, Target t, String call) throws InterruptedException {
            String id = id(t, call);
            String line = worker.await(l -> l.startsWith("RESULT " + id + " ") || l.startsWith("ERROR " + id + " "),
                    0, WAIT, "result of " + id);
            assertTrue(line.startsWith("RESULT "), worker.name() + "'s call " + id + " failed: " + line);
            return line.substring(("RESULT " + id + " ").length());
        }

        private static long events(ChildJvm worker, String type, String key, String where) {
            String line = "EVENT " + type + " " + key + " ";
            return worker.lines().stream().filter(l -> l.startsWith(line) && l.endsWith(" " + where)).count();
        }

        private static long claims(ChildJvm worker, int from, String key, String outcome) {
            List<String> all = worker.lines();
            return all.subList(from, all.size()).stream()
                    .filter(l -> l.startsWith("CLAIM " + key + " " + outcome + " ")).count();
        }

        /** The ledger's rows of {@code key} as {@code "<worker> <token>"}, in token order. */
        private List<String> ledger(String key) throws Exception {
            List<String> rows = new ArrayList<>();
            try (Connection c = DriverManager.getConnection(pg);
                 PreparedStatement ps = c.prepareStatement("SELECT worker, token FROM " + ledger
                         + " WHERE idem_key = ? ORDER BY token")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(rs.getString(1) + " " + rs.getLong(2));
                    }
                }
            }
            return rows;
        }
    }

    private static void createLedger(String pg, String ledger) throws Exception {
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + ledger + " (idem_key TEXT NOT NULL, worker VARCHAR(8) NOT NULL,"
                    + " token BIGINT NOT NULL, result TEXT NOT NULL)");
        }
    }

    private static long postgresNow(String pg) {
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS"
                     + " BIGINT)")) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
