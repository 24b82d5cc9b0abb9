package dev.idem.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a soak left behind, read after every worker has exited: the ledger's rows (one per execution whose side effect
 * happened) and the lines every worker incarnation appended to its events file ({@link SoakWorker}), including those
 * of incarnations killed with SIGKILL.
 */
final class SoakFindings {
    /** One ledger row: one execution of {@code argKey} whose side effect happened. */
    record Row(String idemKey, String argKey, String execution, int worker, int incarnation, long pid, long token) {
    }

    /** A TAKEOVER event: the claim {@code deadToken} of process {@code deadPid} was taken over as {@code token}. */
    record Takeover(long deadPid, long deadToken) {
    }

    /**
     * A claim the store granted a worker ({@code CLAIMED}, reported by {@link ReportingStore}): the state and token of
     * the record it replaced ({@code null} and 0 when it replaced none), and whether its incarnation lived to the end.
     */
    record Claim(String replacedState, long replacedToken, boolean survivor) {
        boolean tookOver() {
            return "IN_PROGRESS".equals(replacedState);
        }
    }

    final List<Row> rows = new ArrayList<>();
    /** (idem key, new token) to the claim it took over. */
    final Map<String, Takeover> takeovers = new HashMap<>();
    /** (idem key, token) to the claim the store granted under that token. */
    final Map<String, Claim> claims = new HashMap<>();
    /** Per idem key, the tokens of its claims the store granted, in order. */
    final Map<String, TreeSet<Long>> claimTokens = new HashMap<>();
    /** (idem key, token) of the claims whose release the store applied: the key was absent after it. */
    final Set<String> released = new HashSet<>();
    final Set<String> executed = new HashSet<>();
    final Set<String> indeterminate = new HashSet<>();
    final Set<String> leaseLost = new HashSet<>();
    final Set<String> reconciled = new HashSet<>();
    final Set<String> abandoned = new HashSet<>();
    /** (argument key, execution) pairs some caller got as its result. */
    final Set<String> saw = new HashSet<>();
    /** LEASE_LOST and INDETERMINATE lines with their details, printed. */
    final List<String> explained = new ArrayList<>();
    /** Wrong results, unexpected exceptions, events that could not be read. */
    final List<String> troubles = new ArrayList<>();
    /** Per surviving worker: key index to what its final call got. */
    final Map<Integer, Map<Integer, String>> finals = new TreeMap<>();
    /** Counters summed over the last STATS line of every incarnation. */
    final Map<String, Long> counters = new TreeMap<>();

    static String tokenKey(String idemKey, long token) {
        return idemKey + "#" + token;
    }

    static SoakFindings read(String pg, String ledger, Map<Path, Integer> eventFiles, Set<Path> survivors)
            throws Exception {
        SoakFindings f = new SoakFindings();
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT idem_key, arg_key, execution, worker, incarnation, pid, token FROM "
                     + ledger + " ORDER BY idem_key, token")) {
            while (rs.next()) {
                f.rows.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getInt(5),
                        rs.getLong(6), rs.getLong(7)));
            }
        }
        for (Map.Entry<Path, Integer> file : eventFiles.entrySet()) {
            f.readEvents(file.getKey(), file.getValue(), survivors.contains(file.getKey()));
        }
        return f;
    }

    private void readEvents(Path file, int worker, boolean survivor) throws IOException {
        readLines(file.getFileName().toString(), Files.readAllLines(file), worker, survivor);
    }

    /** Reads the lines of one incarnation's events file, named {@code name} in what it reports. */
    void readLines(String name, List<String> lines, int worker, boolean survivor) {
        String lastStats = null;
        for (String line : lines) {
            String[] p = line.split(" ");
            switch (p[0]) {
                case "TAKEOVER" -> takeovers.put(tokenKey(p[1], Long.parseLong(p[2])),
                        new Takeover(Long.parseLong(p[3]), Long.parseLong(p[4])));
                case "CLAIMED" -> {
                    long token = Long.parseLong(p[2]);
                    claims.put(tokenKey(p[1], token), new Claim(p[3].equals("-") ? null : p[3],
                            Long.parseLong(p[4]), survivor));
                    claimTokens.computeIfAbsent(p[1], k -> new TreeSet<>()).add(token);
                }
                case "RELEASED" -> released.add(tokenKey(p[1], Long.parseLong(p[2])));
                case "EXECUTED" -> executed.add(tokenKey(p[1], Long.parseLong(p[2])));
                case "INDETERMINATE" -> {
                    indeterminate.add(tokenKey(p[1], Long.parseLong(p[2])));
                    explained.add(name + ": " + line);
                }
                case "LEASE_LOST" -> {
                    leaseLost.add(tokenKey(p[1], Long.parseLong(p[2])));
                    explained.add(name + ": " + line);
                }
                case "RECONCILED" -> reconciled.add(tokenKey(p[1], Long.parseLong(p[2])));
                case "ABANDONED" -> abandoned.add(tokenKey(p[1], Long.parseLong(p[2])));
                case "SAW" -> saw.add(p[1] + " " + p[2]);
                case "STATS" -> lastStats = line;
                case "FINAL" -> {
                    if (survivor) {
                        finals.computeIfAbsent(worker, w -> new TreeMap<>()).put(Integer.parseInt(p[1]),
                                line.substring(line.indexOf(' ', "FINAL ".length()) + 1));
                    }
                }
                default -> troubles.add(name + ": " + line); // WRONG, UNEXPECTED, UNPARSED
            }
        }
        if (lastStats != null) {
            for (String field : lastStats.substring("STATS".length()).trim().split(" ")) {
                if (!field.isEmpty()) {
                    String[] kv = field.split("=");
                    counters.merge(kv[0], Long.parseLong(kv[1]), Long::sum);
                }
            }
        }
    }

    long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }

    /** The ledger's rows by idempotency key, in token order. */
    Map<String, List<Row>> byKey() {
        Map<String, List<Row>> byKey = new LinkedHashMap<>();
        for (Row r : rows) {
            byKey.computeIfAbsent(r.idemKey(), k -> new ArrayList<>()).add(r);
        }
        return byKey;
    }

    /**
     * How the duplicates of a TAKE_OVER soak were explained: by why the execution before each was abandoned (its
     * owner killed, its completion lost, its lease lost), and how many of them ran under a fresh claim after the
     * takeover's own execution failed; with the duplicates nothing explains.
     */
    record Pairing(int afterKill, int afterLostCompletion, int afterLostLease, int afterReleasedTakeover,
                   List<String> unexplained) {
    }

    /**
     * Pairs each duplicate with the takeover that let it run. The execution before it must have been abandoned: it
     * never completed, and its owner was a killed incarnation ({@code killedPids}) or reported INDETERMINATE or
     * LEASE_LOST for it. And its abandonment must have been reported as a takeover: either the duplicate's own claim
     * took over (the TAKEOVER event of its token names the abandoned claim or a later one), or an earlier claim took
     * over (its TAKEOVER names the abandoned claim or a later one), its execution failed before any side effect and
     * the store applied its release, and the duplicate's claim, the next one granted on the key, replaced nothing
     * (see {@link #releasedTakeover}). Any other duplicate is unexplained.
     */
    Pairing pairDuplicates(Set<Long> killedPids) {
        int afterKill = 0;
        int afterLostCompletion = 0;
        int afterLostLease = 0;
        int afterReleasedTakeover = 0;
        List<String> unexplained = new ArrayList<>();
        for (List<Row> executions : byKey().values()) {
            for (int i = 1; i < executions.size(); i++) {
                Row before = executions.get(i - 1);
                Row again = executions.get(i);
                Takeover takeover = takeovers.get(tokenKey(again.idemKey(), again.token()));
                String beforeToken = tokenKey(before.idemKey(), before.token());
                boolean completed = executed.contains(beforeToken);
                boolean killed = killedPids.contains(before.pid());
                boolean lost = indeterminate.contains(beforeToken);
                boolean lostLease = leaseLost.contains(beforeToken);
                boolean direct = takeover != null && takeover.deadToken() >= before.token();
                Long through = takeover == null ? releasedTakeover(again.idemKey(), before.token(), again.token())
                        : null;
                if ((direct || through != null) && !completed && (killed || lost || lostLease)) {
                    if (killed) {
                        afterKill++;
                    } else if (lost) {
                        afterLostCompletion++;
                    } else {
                        afterLostLease++;
                    }
                    if (through != null) {
                        afterReleasedTakeover++;
                    }
                } else {
                    Claim claim = claims.get(tokenKey(again.idemKey(), again.token()));
                    unexplained.add(again + " after " + before + ": takeover " + takeover + ", claim " + claim
                            + ", earlier execution " + (completed ? "COMPLETED" : "not completed")
                            + (killed ? ", killed" : "") + (lost ? ", INDETERMINATE" : "")
                            + (lostLease ? ", LEASE_LOST" : "") + "; claims of the key in between: "
                            + between(again.idemKey(), before.token(), again.token()));
                }
            }
        }
        return new Pairing(afterKill, afterLostCompletion, afterLostLease, afterReleasedTakeover, unexplained);
    }

    /**
     * The token of the reported takeover through which the execution {@code to} of {@code idemKey} came after the
     * abandoned execution {@code from}, when its own claim took nothing over; else null. That is: a claim granted
     * between the two took over the abandoned claim or a later one (its TAKEOVER event names a dead token of at
     * least {@code from}); the last claim granted on the key before {@code to} (that one, or a later fresh one)
     * failed and the store applied its release, so the key was absent; and {@code to}'s own claim, reported by its
     * worker, replaced no record in progress. Claims between the two ran no side effect: the ledger holds no row
     * between them.
     */
    Long releasedTakeover(String idemKey, long from, long to) {
        Claim claim = claims.get(tokenKey(idemKey, to));
        TreeSet<Long> granted = claimTokens.get(idemKey);
        if (claim == null || claim.tookOver() || granted == null) {
            return null;
        }
        Long previous = granted.lower(to);
        if (previous == null || previous <= from || !released.contains(tokenKey(idemKey, previous))) {
            return null;
        }
        for (long token : granted.subSet(from, false, to, false)) {
            Takeover takeover = takeovers.get(tokenKey(idemKey, token));
            if (takeover != null && takeover.deadToken() >= from) {
                return token;
            }
        }
        return null;
    }

    /** The claims granted on {@code idemKey} between two tokens, as the soak prints an unexplained duplicate. */
    private String between(String idemKey, long from, long to) {
        TreeSet<Long> granted = claimTokens.getOrDefault(idemKey, new TreeSet<>());
        List<String> found = new ArrayList<>();
        for (long token : granted.subSet(from, false, to, false)) {
            String key = tokenKey(idemKey, token);
            found.add(token + " " + claims.get(key) + " takeover " + takeovers.get(key)
                    + (released.contains(key) ? " released" : "") + (executed.contains(key) ? " executed" : ""));
        }
        return found.toString();
    }

    /**
     * The claims that took over a record in progress, as the store told the worker, whose takeover the engine did
     * not report with an event of the claim's token: TAKEOVER naming the replaced claim; under RECONCILE
     * ({@code reconcile}) also RECONCILED or ABANDONED, or the LEASE_LOST or INDETERMINATE of a reconciler's answer
     * that could not be stored. A claim of a killed incarnation that ran nothing is left out: the kill may have come
     * between the store's answer and the event.
     */
    List<String> unreportedTakeovers(boolean reconcile) {
        Set<String> ran = new HashSet<>();
        for (Row r : rows) {
            ran.add(tokenKey(r.idemKey(), r.token()));
        }
        List<String> unreported = new ArrayList<>();
        claims.forEach((token, claim) -> {
            if (!claim.tookOver() || !claim.survivor() && !ran.contains(token)) {
                return;
            }
            Takeover takeover = takeovers.get(token);
            boolean reported = takeover != null && takeover.deadToken() == claim.replacedToken()
                    || reconcile && (reconciled.contains(token) || abandoned.contains(token)
                    || leaseLost.contains(token) || indeterminate.contains(token));
            if (!reported) {
                unreported.add(token + " replaced the claim " + claim.replacedToken() + " in progress, reported as "
                        + takeover);
            }
        });
        return unreported;
    }

    /** Executions beyond the first of their key: each ran the side effect again. */
    List<Row> duplicates() {
        List<Row> duplicates = new ArrayList<>();
        for (List<Row> executions : byKey().values()) {
            duplicates.addAll(executions.subList(1, executions.size()));
        }
        return duplicates;
    }
}
