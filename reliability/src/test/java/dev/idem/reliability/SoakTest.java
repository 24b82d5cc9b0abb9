package dev.idem.reliability;

import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.LoopbackProxy;

import dev.idem.testsupport.RedisServerProcess;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak under faults: {@value SoakRun#JVMS} worker JVMs ({@link SoakWorker}) x {@value SoakWorker#THREADS}
 * threads call one operation over a sliding, heavily overlapping key space for {@code idem.soak.seconds} [16] while
 * {@link SoakRun} kills and restarts a worker, and resets, black-holes and slows the store's connections through a
 * {@link LoopbackProxy}; bodies throw (retryable and {@code noRetryFor}) and outlive their lease. Each execution appends
 * a row to a PostgreSQL ledger. One test per store configuration.
 *
 * <p>Asserted for all: no caller got a wrong result or another key's (each result names its key and its execution,
 * which the ledger must hold); no unexpected exception; no two executions under one fencing token; after the run,
 * every key answers every worker alike, with an execution the ledger holds (nothing is lost, nothing stays stuck).
 * Outside transactional mode, every claim the store granted a worker is reported by it ({@link ReportingStore}), and
 * every one that took over a record in progress was reported by the engine (TAKEOVER; under RECONCILE also
 * RECONCILED or ABANDONED): no takeover is silent, whether or not it ran the body.
 * Duplicates (ledger rows beyond a key's first): none in transactional mode and with RECONCILE; with TAKE_OVER each
 * one is paired with the takeover that let it run ({@link SoakFindings#pairDuplicates}): the TAKEOVER event of its own
 * fencing token, or of an earlier claim whose execution failed before its side effect and was released, after which
 * the duplicate's claim took the absent key. And the execution before it was abandoned and never completed: its owner
 * was a killed incarnation, or it reported INDETERMINATE (the side effect happened, its completion could not be
 * stored, the record stayed in progress until its lease passed) or LEASE_LOST (its renewals could not reach the store
 * for the rest of its lease, and its completion was refused). Any other duplicate fails.
 */
class SoakTest {
    static final long SECONDS = Long.getLong("idem.soak.seconds", 16);
    private static final Pattern JDBC = Pattern.compile("jdbc:postgresql://([^/:?]+)(?::(\\d+))?(/.*)");

    @Test
    void postgresTakeOver() {
        withinDeadline(() -> postgres("plain"));
    }

    @Test
    void postgresTransactional() {
        withinDeadline(() -> postgres("tx"));
    }

    @Test
    void postgresReconcile() {
        withinDeadline(() -> postgres("reconcile"));
    }

    @Test
    void redisTakeOver() {
        withinDeadline(this::redis);
    }

    /**
     * Runs one configuration on a thread of its own and abandons it, failing the test, once it outlives the soak by
     * four minutes (start, the final pass, the checks): the deadline grows with {@code idem.soak.seconds}, which a
     * fixed {@code @Timeout} could not.
     */
    private static void withinDeadline(Executable configuration) {
        assertTimeoutPreemptively(Duration.ofSeconds(240 + 2 * SECONDS), configuration);
    }

    private void redis() throws Exception {
        String pg = TestPostgres.url();
        try (RedisServerProcess redis = RedisServerProcess.start("the reliability suite's Redis tests are");
             LoopbackProxy proxy = new LoopbackProxy("127.0.0.1", Integer.parseInt(redis.uri().replaceAll(".*:", "")));
             SoakRun run = new SoakRun("plain", pg, proxy, SECONDS, "store=redis",
                     "via=redis://127.0.0.1:" + proxy.port())) {
            check("redis (TAKE_OVER)", run.run(), null);
        }
    }

    private static void postgres(String mode) throws Exception {
        String pg = TestPostgres.url();
        Matcher m = JDBC.matcher(pg);
        assertTrue(m.matches(), "a PostgreSQL JDBC URL: " + pg);
        String table = "idem_soak_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcIdempotencyStore.builder(pg).table(table).createTable(true).build().close();
        ClaimHistory history = null;
        try (LoopbackProxy proxy = new LoopbackProxy(m.group(1), m.group(2) == null ? 5432 : Integer.parseInt(m.group(2)))) {
            history = ClaimHistory.install(pg, table);
            String rest = m.group(3);
            // The socket timeout backs up the proxy (which drops what it held when it heals); longer than the
            // transactional waiters' lock wait (waitTimeout 12 s).
            String via = "jdbc:postgresql://127.0.0.1:" + proxy.port() + rest + (rest.contains("?") ? "&" : "?")
                    + "connectTimeout=2&socketTimeout=20&tcpKeepAlive=true";
            try (SoakRun run = new SoakRun(mode, pg, proxy, SECONDS, "store=jdbc", "via=" + via, "table=" + table)) {
                check("postgres jdbc (" + switch (mode) {
                    case "tx" -> "storeTransaction = REQUIRED";
                    case "reconcile" -> "RECONCILE";
                    default -> "TAKE_OVER";
                } + ")", run.run(), history);
            }
        } finally {
            try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                s.execute("DROP SEQUENCE IF EXISTS " + table + "_tokens");
            }
            if (history != null) {
                history.drop();
            }
        }
    }

    /** @param history what the records table went through (PostgreSQL), or null (Redis) */
    private static void check(String name, SoakRun run, ClaimHistory history) throws Exception {
        SoakFindings f = SoakFindings.read(run.pg, run.ledger, run.eventFiles, run.survivors());
        List<SoakFindings.Row> duplicates = f.duplicates();
        Set<String> ledgered = new HashSet<>();
        for (SoakFindings.Row r : f.rows) {
            ledgered.add(r.argKey() + " " + r.execution());
        }

        // Pair each duplicate with the takeover that let it run, and the abandoned execution before it.
        SoakFindings.Pairing pairing = f.pairDuplicates(run.killedPids);
        long slowDone = f.rows.stream().filter(r -> Integer.parseInt(r.argKey().substring(1)) % 17 == 5
                && f.executed.contains(SoakFindings.tokenKey(r.idemKey(), r.token()))).count();

        print(name, run, f, duplicates.size(), pairing, slowDone);
        f.explained.forEach(line -> System.out.println("  " + line));
        System.out.printf(Locale.ROOT, "  claims granted and reported %d (%d took over a record in progress),"
                + " releases applied %d%s%n", f.claims.size(), f.claims.values().stream()
                .filter(SoakFindings.Claim::tookOver).count(), f.released.size(),
                history == null ? "" : "; each checked against the records table's own history");

        assertEquals(List.of(), f.troubles, "wrong results, unexpected exceptions or unreadable events; stderr in "
                + run.dir.getParent().resolveSibling("workers"));
        Set<String> tokens = new HashSet<>();
        for (SoakFindings.Row r : f.rows) {
            assertTrue(tokens.add(SoakFindings.tokenKey(r.idemKey(), r.token())), "two executions under one token: " + r);
        }
        for (String pair : f.saw) {
            assertTrue(ledgered.contains(pair), "a caller got " + pair + ", an execution of that key the ledger"
                    + " does not hold");
        }
        assertEquals(SoakRun.JVMS, f.finals.size(), "every surviving worker made its final pass");
        for (int i = 0; i <= run.lastKey; i++) {
            String first = null;
            for (Map.Entry<Integer, Map<Integer, String>> worker : f.finals.entrySet()) {
                String value = worker.getValue().get(i);
                assertNotNull(value, "worker " + worker.getKey() + " has a final answer for k" + i);
                assertFalse(value.startsWith("ERROR"), "k" + i + " ended in " + value);
                if (first == null) {
                    first = value;
                }
                assertEquals(first, value, "every worker gets k" + i + "'s one answer");
            }
            if (i % 23 == 0) {
                assertEquals("FATAL", first, "k" + i + " always throws FatalFault");
            } else {
                String execution = first.substring(first.indexOf('|') + 1);
                assertTrue(first.startsWith("k" + i + "|") && ledgered.contains("k" + i + " " + execution),
                        "k" + i + "'s final answer " + first + " is an execution of k" + i + " in the ledger");
            }
        }
        assertTrue(run.kills >= 1 && run.proxy.dropped() >= 1, "faults were injected: kills " + run.kills
                + ", connections dropped " + run.proxy.dropped());
        if (!run.mode.equals("tx")) { // the transactional claims are the store's own, not reported by the worker
            assertEquals(List.of(), f.rows.stream().filter(r -> !f.claims.containsKey(SoakFindings.tokenKey(r.idemKey(),
                    r.token()))).toList(), "executions whose claim the worker did not report");
            assertEquals(List.of(), f.unreportedTakeovers(run.mode.equals("reconcile")), "every claim that took"
                    + " over a record in progress, as the store told its worker, was reported by the engine");
            if (history != null) {
                assertEquals(List.of(), history.misreported(f), "every claim the store granted told its worker"
                        + " what it replaced, as the records table went through it");
            }
        }

        String[] hung = run.hung.get(0); // key, token, execution of the first killed incarnation's hung body
        List<SoakFindings.Row> hungKey = f.rows.stream().filter(r -> r.argKey().equals(hung[0])).toList();
        switch (run.mode) {
            case "tx" -> {
                assertEquals(List.of(), duplicates, "transactional mode: no duplicates");
                assertFalse(ledgered.contains(hung[0] + " " + hung[2]), "the killed transaction's ledger row was"
                        + " rolled back");
                assertEquals(1, hungKey.size(), hung[0] + " ran once after its owner was killed: " + hungKey);
            }
            case "reconcile" -> {
                assertEquals(List.of(), duplicates, "RECONCILE: no duplicates");
                assertEquals(1, hungKey.size(), hung[0] + " ran once: " + hungKey);
                assertTrue(f.reconciled.stream().anyMatch(t -> t.startsWith(hungKey.get(0).idemKey() + "#")),
                        "the killed owner's execution of " + hung[0] + " was reconciled from the ledger");
            }
            default -> {
                assertEquals(List.of(), pairing.unexplained(), "TAKE_OVER: every duplicate is a takeover of an"
                        + " abandoned execution (killed owner, completion lost, or lease lost, each reported)");
                assertTrue(pairing.afterKill() >= 1, "the killed owner's hung execution of " + hung[0]
                        + " was taken over and ran again: " + hungKey);
            }
        }
    }

    private static void print(String name, SoakRun run, SoakFindings f, int duplicates,
                              SoakFindings.Pairing pairing, long slowDone) {
        StringBuilder failedClosed = new StringBuilder();
        f.counters.forEach((k, v) -> {
            if (k.startsWith("failedClosed.")) {
                failedClosed.append(' ').append(k.substring("failedClosed.".length())).append('=').append(v);
            }
        });
        System.out.printf(Locale.ROOT, "SOAK %s: %d JVMs x %d threads, %d s of faults (start %d ms, drain %d ms, final pass %d ms)%n"
                        + "  calls %d + %d in the final pass (counted to each incarnation's last report), results %d, wrong %d, failed closed %d (%s ),"
                        + " FatalFault replayed/thrown %d, TransientFault after retries %d%n"
                        + "  executions (ledger rows) %d over %d keys; duplicates %d = %d after a killed owner + %d after a"
                        + " lost completion + %d after a lost lease (%d of them after the takeover's own"
                        + " execution failed and released the key)%n"
                        + "  events: TAKEOVER %d, RECONCILED %d, LEASE_LOST %d, INDETERMINATE %d, ABANDONED %d, EXECUTED %d,"
                        + " RETRY %d, GAVE_UP %d, STORE_ERROR %d; bodies 1.3 leases long completed: %d%n"
                        + "  faults: %d kills (SIGKILL + restart), %d resets, %d black-holes of %d ms, %d latency phases"
                        + " of %d ms; connections %d, dropped by faults %d%n",
                name, SoakRun.JVMS, SoakWorker.THREADS, run.seconds, run.readyMillis, run.drainMillis, run.finalMillis,
                f.counter("calls"), f.counter("finalCalls"), f.counter("ok"), f.counter("wrong"), f.counter("failedClosed"), failedClosed,
                f.counter("fatal"), f.counter("transient"),
                f.rows.size(), f.byKey().size(), duplicates, pairing.afterKill(), pairing.afterLostCompletion(),
                pairing.afterLostLease(), pairing.afterReleasedTakeover(),
                f.takeovers.size(), f.reconciled.size(), f.leaseLost.size(), f.indeterminate.size(),
                f.abandoned.size(), f.executed.size(), f.counter("event.RETRY"), f.counter("event.GAVE_UP"),
                f.counter("event.STORE_ERROR"), slowDone,
                run.kills, run.resets, run.blackHoles, SoakRun.BLACK_HOLE_MILLIS, run.latencyPhases,
                SoakRun.LATENCY_MILLIS, run.proxy.connections(), run.proxy.dropped());
    }
}
