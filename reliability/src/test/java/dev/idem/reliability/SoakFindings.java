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

    final List<Row> rows = new ArrayList<>();
    /** (idem key, new token) to the claim it took over. */
    final Map<String, Takeover> takeovers = new HashMap<>();
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
        String lastStats = null;
        for (String line : Files.readAllLines(file)) {
            String[] p = line.split(" ");
            switch (p[0]) {
                case "TAKEOVER" -> takeovers.put(tokenKey(p[1], Long.parseLong(p[2])),
                        new Takeover(Long.parseLong(p[3]), Long.parseLong(p[4])));
                case "EXECUTED" -> executed.add(tokenKey(p[1], Long.parseLong(p[2])));
                case "INDETERMINATE" -> {
                    indeterminate.add(tokenKey(p[1], Long.parseLong(p[2])));
                    explained.add(file.getFileName() + ": " + line);
                }
                case "LEASE_LOST" -> {
                    leaseLost.add(tokenKey(p[1], Long.parseLong(p[2])));
                    explained.add(file.getFileName() + ": " + line);
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
                default -> troubles.add(file.getFileName() + ": " + line); // WRONG, UNEXPECTED, UNPARSED
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

    /** Executions beyond the first of their key: each ran the side effect again. */
    List<Row> duplicates() {
        List<Row> duplicates = new ArrayList<>();
        for (List<Row> executions : byKey().values()) {
            duplicates.addAll(executions.subList(1, executions.size()));
        }
        return duplicates;
    }
}
