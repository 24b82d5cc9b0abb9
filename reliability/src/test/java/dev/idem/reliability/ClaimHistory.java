package dev.idem.reliability;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the jdbc store's records table went through, as PostgreSQL saw it: a trigger on the table logs every write that
 * gives a key's row a fencing token (every claim: an insert, a takeover, a claim of a released, expired or superseded
 * record) with the state and token of the row version it replaced, in the claim's own transaction (so a claim that
 * rolled back leaves no line). The soak compares it with what the store told its workers ({@code CLAIMED}): a claim
 * that replaced a record in progress must have said so, with that record's token, and no other claim may have.
 */
final class ClaimHistory {
    /** The row version a claim replaced: its state and token, or none (the claim inserted the row). */
    record Replaced(String state, long token) {
    }

    private final String pg;
    private final String table;
    private final String log;

    private ClaimHistory(String pg, String table) {
        this.pg = pg;
        this.table = table;
        this.log = table + "_claims";
    }

    /** Installs the trigger on {@code table}, which must exist; {@link #drop} removes what this made. */
    static ClaimHistory install(String pg, String table) throws SQLException {
        ClaimHistory history = new ClaimHistory(pg, table);
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + history.log + " (idem_key TEXT NOT NULL, new_token BIGINT NOT NULL,"
                    + " old_state TEXT, old_token BIGINT)");
            s.execute("CREATE FUNCTION " + history.log + "_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " IF TG_OP = 'INSERT' THEN INSERT INTO " + history.log + " VALUES (NEW.idem_key,"
                    + " NEW.fencing_token, NULL, NULL);"
                    + " ELSE INSERT INTO " + history.log + " VALUES (NEW.idem_key, NEW.fencing_token, OLD.state,"
                    + " OLD.fencing_token); END IF; RETURN NULL; END $$");
            // UPDATE OF fencing_token: the claims, which set it; completions, renewals and releases do not
            s.execute("CREATE TRIGGER " + history.log + " AFTER INSERT OR UPDATE OF fencing_token ON " + table
                    + " FOR EACH ROW EXECUTE FUNCTION " + history.log + "_write()");
        }
        return history;
    }

    /** (idem key, token) to the row version the claim of that token replaced. */
    Map<String, Replaced> read() throws SQLException {
        Map<String, Replaced> replaced = new HashMap<>();
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT idem_key, new_token, old_state, old_token FROM " + log)) {
            while (rs.next()) {
                replaced.put(SoakFindings.tokenKey(rs.getString(1), rs.getLong(2)),
                        new Replaced(rs.getString(3), rs.getLong(4)));
            }
        }
        return replaced;
    }

    /**
     * The claims the store told a worker about otherwise than they happened: one that replaced a record in progress
     * and did not report it (a silent takeover), reported another token, or reported a takeover of a record that was
     * not in progress; and a granted claim the table never saw.
     */
    List<String> misreported(SoakFindings f) throws SQLException {
        Map<String, Replaced> truth = read();
        List<String> wrong = new ArrayList<>();
        f.claims.forEach((token, claim) -> {
            Replaced was = truth.get(token);
            if (was == null) {
                wrong.add(token + " was reported granted (" + claim + ") but never written to " + table);
                return;
            }
            boolean tookOver = "IN_PROGRESS".equals(was.state());
            if (tookOver != claim.tookOver() || tookOver && was.token() != claim.replacedToken()) {
                wrong.add(token + " replaced " + was + " in " + table + " but the store reported " + claim);
            }
        });
        return wrong;
    }

    /** Drops the trigger's log and function (dropping the records table drops the trigger). */
    void drop() throws SQLException {
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DROP FUNCTION IF EXISTS " + log + "_write()");
            s.execute("DROP TABLE IF EXISTS " + log);
        }
    }
}
