package dev.idem.reliability;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.RecordState;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ClaimHistory} against a real records table: a claim of a new key, then a takeover of its claim once its lease
 * has passed (moved into the past by hand), checked against what a worker would have reported.
 */
@Timeout(60)
class ClaimHistoryTest {
    private static final String KEY = "idem:reliability:history:k1";

    private final String pg = TestPostgres.url();
    private final String table = "idem_soak_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private ClaimHistory history;

    @AfterEach
    void drop() throws Exception {
        if (history != null) {
            history.drop();
        }
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DROP SEQUENCE IF EXISTS " + table + "_tokens");
        }
    }

    /** The tokens of the first claim and of the takeover of it. */
    private long[] claimThenTakeOver() throws Exception {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pg).table(table).createTable(true).build()) {
            history = ClaimHistory.install(pg, table);
            long first = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request("a"))).fencingToken();
            try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                s.execute("UPDATE " + table + " SET lease_until = 0"); // its owner died long ago
            }
            ClaimOutcome.Acquired takeover = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request("b")));
            assertEquals(RecordState.IN_PROGRESS, takeover.replaced().state());
            store.complete(KEY, takeover.fencingToken(), new byte[] {1}, Duration.ofMinutes(1)); // no token written
            return new long[] {first, takeover.fencingToken()};
        }
    }

    private static ClaimRequest request(String owner) {
        return new ClaimRequest(KEY, "hash", owner, Duration.ofSeconds(30), Duration.ZERO);
    }

    private static SoakFindings reported(String... lines) {
        SoakFindings f = new SoakFindings();
        f.readLines("w0-1.events", List.of(lines), 0, true);
        return f;
    }

    @Test
    void claimsReportedAsTheyHappenedPass() throws Exception {
        long[] t = claimThenTakeOver();

        assertEquals(List.of(), history.misreported(reported("CLAIMED " + KEY + " " + t[0] + " - 0",
                "CLAIMED " + KEY + " " + t[1] + " IN_PROGRESS " + t[0])));
    }

    @Test
    void aTakeoverReportedAsAFreshClaimIsMisreported() throws Exception {
        long[] t = claimThenTakeOver();

        List<String> wrong = history.misreported(reported("CLAIMED " + KEY + " " + t[1] + " - 0"));

        assertEquals(1, wrong.size(), wrong.toString());
        assertTrue(wrong.get(0).contains("IN_PROGRESS"), wrong.get(0));
    }

    @Test
    void aFreshClaimReportedAsATakeoverOrAnotherTokenIsMisreported() throws Exception {
        long[] t = claimThenTakeOver();

        assertEquals(2, history.misreported(reported("CLAIMED " + KEY + " " + t[0] + " IN_PROGRESS 1",
                "CLAIMED " + KEY + " " + t[1] + " IN_PROGRESS " + (t[0] - 1))).size());
    }

    @Test
    void aClaimTheTableNeverSawIsMisreported() throws Exception {
        long[] t = claimThenTakeOver();

        assertEquals(1, history.misreported(reported("CLAIMED " + KEY + " " + (t[1] + 1000) + " - 0")).size());
    }
}
