package dev.idem.reliability;

import dev.idem.testsupport.ChildJvm;
import dev.idem.testsupport.LoopbackProxy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One soak: {@value #JVMS} {@link SoakWorker} JVMs against one store configuration, reaching the store through a
 * {@link LoopbackProxy} the run owns, while it injects faults on a schedule; then a final pass and the findings.
 *
 * <h2>The schedule</h2>
 * The run lasts {@code seconds}, cut into cycles of at most {@value #CYCLE_SECONDS} s. In each cycle, at fixed
 * fractions of it: 30 ms of latency on every chunk each way (10 % to 25 %); a worker told to hang in its next
 * execution after the side effect, killed with SIGKILL once it says it hangs, and restarted as its next incarnation
 * (30 %); every store connection reset (55 %); the store black-holed for {@value #BLACK_HOLE_MILLIS} ms, then every
 * connection held meanwhile dropped (70 %); another reset (85 %). The schedule only decides when faults happen; what
 * is asserted never depends on it.
 */
final class SoakRun implements AutoCloseable {
    static final int JVMS = 4;
    static final long CYCLE_SECONDS = 30;
    static final long BLACK_HOLE_MILLIS = 1200;
    static final long LATENCY_MILLIS = 30;
    static final long LEASE_MILLIS = 5000;

    final String mode;
    final String pg;
    final String ledger;
    final LoopbackProxy proxy;
    final Path dir;
    final long seconds;
    private final List<String> workerArgs;
    private final Slot[] slots = new Slot[JVMS];
    /** Every events file, with its worker. */
    final Map<Path, Integer> eventFiles = new LinkedHashMap<>();
    final Set<Long> killedPids = new HashSet<>();
    /** What each killed incarnation said when it hung: key, token, execution. */
    final List<String[]> hung = new ArrayList<>();
    private final List<Thread> restarts = new ArrayList<>();
    private volatile Throwable restartFailure;
    int kills;
    int resets;
    int blackHoles;
    int latencyPhases;
    long start;
    long end;
    int lastKey;
    /** Phases (printed, never asserted): workers started and warm; run's end to every worker drained; final pass. */
    long readyMillis;
    long drainMillis;
    long finalMillis;

    /** A worker id and its current incarnation. */
    private static final class Slot {
        ChildJvm jvm;
        int incarnation;
        Path events;
    }

    /**
     * @param mode     plain, tx or reconcile
     * @param pg       the ledger's PostgreSQL (direct)
     * @param proxy    the store's server behind the run's proxy
     * @param storeArgs {@code store=...}, {@code via=...} (through the proxy), {@code table=...}
     */
    SoakRun(String mode, String pg, LoopbackProxy proxy, long seconds, String... storeArgs) throws Exception {
        this.mode = mode;
        this.pg = pg;
        this.proxy = proxy;
        this.seconds = seconds;
        String id = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        this.ledger = "idem_soak_" + id + "_ledger";
        this.dir = Path.of(System.getProperty("idem.test.dir", "target"), "soak", mode + "-" + id).toAbsolutePath();
        Files.createDirectories(dir);
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + ledger + " (idem_key VARCHAR(300) NOT NULL, arg_key VARCHAR(20) NOT NULL,"
                    + " execution VARCHAR(40) NOT NULL, worker INT NOT NULL, incarnation INT NOT NULL,"
                    + " pid BIGINT NOT NULL, token BIGINT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
        }
        workerArgs = new ArrayList<>(List.of("mode=" + mode, "pg=" + pg, "ledger=" + ledger,
                "scope=reliability:soak-" + id, "leaseMillis=" + LEASE_MILLIS));
        workerArgs.addAll(List.of(storeArgs));
    }

    /** Runs the workers through the fault schedule and the final pass; every worker has exited when it returns. */
    SoakRun run() throws Exception {
        long began = System.currentTimeMillis();
        for (int w = 0; w < JVMS; w++) {
            slots[w] = new Slot();
            launch(w);
        }
        for (Slot slot : slots) {
            slot.jvm.await("READY", Duration.ofSeconds(90));
        }
        start = System.currentTimeMillis();
        end = start + seconds * 1000;
        for (Slot slot : slots) {
            slot.jvm.send("GO " + start + " " + end);
        }
        readyMillis = start - began;
        injectFaults();
        for (Thread restart : restarts) {
            restart.join(TimeUnit.SECONDS.toMillis(120));
        }
        if (restartFailure != null) {
            throw new AssertionError("a restarted worker did not start", restartFailure);
        }
        for (Slot slot : slots) {
            slot.jvm.await("DRAINED", Duration.ofSeconds(90));
        }
        drainMillis = System.currentTimeMillis() - end;
        lastKey = (int) ((end - start) / SoakWorker.STEP_MILLIS) + SoakWorker.SPREAD;
        for (Slot slot : slots) {
            slot.jvm.send("FINAL " + lastKey);
        }
        for (Slot slot : slots) {
            slot.jvm.finish(Duration.ofSeconds(180));
        }
        finalMillis = System.currentTimeMillis() - end - drainMillis;
        return this;
    }

    /** The events files of the incarnations that lived to the end. */
    Set<Path> survivors() {
        Set<Path> survivors = new HashSet<>();
        for (Slot slot : slots) {
            survivors.add(slot.events);
        }
        return survivors;
    }

    private void launch(int w) throws Exception {
        Slot slot = slots[w];
        slot.incarnation++;
        slot.events = dir.resolve("w" + w + "-" + slot.incarnation + ".events");
        eventFiles.put(slot.events, w);
        List<String> args = new ArrayList<>(workerArgs);
        args.addAll(List.of("worker=" + w, "incarnation=" + slot.incarnation, "events=" + slot.events));
        slot.jvm = ChildJvm.of(SoakWorker.class)
                .jvmOptions("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                .args(args.toArray(String[]::new)).start();
    }

    private void injectFaults() throws Exception {
        long cycle = Math.min(CYCLE_SECONDS, seconds) * 1000;
        for (long at = start; at + cycle <= end; at += cycle) {
            waitUntil(at + cycle * 10 / 100);
            proxy.latency(LATENCY_MILLIS);
            latencyPhases++;
            waitUntil(at + cycle * 25 / 100);
            proxy.latency(0);
            waitUntil(at + cycle * 30 / 100);
            killAndRestart(kills % JVMS);
            waitUntil(at + cycle * 55 / 100);
            proxy.reset();
            resets++;
            waitUntil(at + cycle * 70 / 100);
            proxy.blackHole();
            blackHoles++;
            waitUntil(at + cycle * 70 / 100 + BLACK_HOLE_MILLIS);
            proxy.heal();
            waitUntil(at + cycle * 85 / 100);
            proxy.reset();
            resets++;
        }
        waitUntil(end);
    }

    /** Tells worker {@code w} to hang after its next side effect, kills it there, and starts its next incarnation. */
    private void killAndRestart(int w) throws Exception {
        Slot slot = slots[w];
        slot.jvm.send("HANG");
        String line = slot.jvm.awaitPrefix("HUNG ", Duration.ofSeconds(30));
        hung.add(line.substring("HUNG ".length()).split(" "));
        killedPids.add(slot.jvm.pid());
        slot.jvm.kill();
        kills++;
        launch(w);
        ChildJvm next = slot.jvm;
        Thread restart = new Thread(() -> { // the schedule goes on while the new incarnation starts
            try {
                next.await("READY", Duration.ofSeconds(90));
                next.send("GO " + start + " " + end);
            } catch (Exception | AssertionError e) {
                restartFailure = e; // then it never prints DRAINED, and the run fails saying why
            }
        }, "restart-w" + w);
        restart.start();
        restarts.add(restart);
    }

    private static void waitUntil(long epochMillis) throws InterruptedException {
        long left = epochMillis - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left); // the fault schedule; nothing asserted depends on it
        }
    }

    /** Kills what is still running (after a failure) and drops the ledger. */
    @Override
    public void close() throws SQLException {
        for (Slot slot : slots) {
            if (slot != null && slot.jvm != null) {
                slot.jvm.close();
            }
        }
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + ledger);
        }
    }
}
