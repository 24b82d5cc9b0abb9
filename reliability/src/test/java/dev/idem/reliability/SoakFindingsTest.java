package dev.idem.reliability;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the soak accounts for duplicates ({@link SoakFindings#pairDuplicates}) and for takeovers
 * ({@link SoakFindings#unreportedTakeovers}), on findings written here: a key whose first execution (token 10)
 * belonged to a killed worker (pid 111) and ran again under token 30.
 */
class SoakFindingsTest {
    private static final String KEY = "idem:reliability:soak:k125";
    private static final long KILLED = 111;
    private static final Set<Long> KILLED_PIDS = Set.of(KILLED);

    /** The two executions in the ledger; the events of a surviving worker's incarnation. */
    private static SoakFindings findings(String... events) {
        SoakFindings f = new SoakFindings();
        f.rows.add(new SoakFindings.Row(KEY, "k125", "first", 0, 1, KILLED, 10));
        f.rows.add(new SoakFindings.Row(KEY, "k125", "again", 1, 1, 222, 30));
        f.readLines("w1-1.events", List.of(events), 1, true);
        return f;
    }

    @Test
    void aDuplicateWhoseOwnClaimTookTheAbandonedClaimOverIsExplained() {
        SoakFindings f = findings("CLAIMED " + KEY + " 30 IN_PROGRESS 10", "TAKEOVER " + KEY + " 30 111 10",
                "EXECUTED " + KEY + " 30");

        SoakFindings.Pairing pairing = f.pairDuplicates(KILLED_PIDS);

        assertEquals(List.of(), pairing.unexplained());
        assertEquals(1, pairing.afterKill());
        assertEquals(0, pairing.afterReleasedTakeover());
        assertEquals(List.of(), f.unreportedTakeovers(false));
    }

    /**
     * The case the soak once failed on: a takeover of the killed owner's claim (20) whose own execution failed before
     * its side effect and released the key, then a fresh claim (30) that ran again. The abandonment was reported, by
     * the takeover's TAKEOVER event; the duplicate's claim took nothing over, so it has none.
     */
    @Test
    void aDuplicateAfterATakeoverWhoseExecutionFailedAndReleasedTheKeyIsExplained() {
        SoakFindings f = findings("CLAIMED " + KEY + " 20 IN_PROGRESS 10", "TAKEOVER " + KEY + " 20 111 10",
                "RELEASED " + KEY + " 20", "CLAIMED " + KEY + " 30 - 0", "EXECUTED " + KEY + " 30");

        SoakFindings.Pairing pairing = f.pairDuplicates(KILLED_PIDS);

        assertEquals(List.of(), pairing.unexplained());
        assertEquals(1, pairing.afterKill());
        assertEquals(1, pairing.afterReleasedTakeover());
        assertEquals(List.of(), f.unreportedTakeovers(false));
    }

    @Test
    void aTakeoverTheEngineDidNotReportIsUnexplainedAndUnreported() {
        SoakFindings f = findings("CLAIMED " + KEY + " 30 IN_PROGRESS 10", "EXECUTED " + KEY + " 30");

        assertEquals(1, f.pairDuplicates(KILLED_PIDS).unexplained().size());
        assertEquals(1, f.unreportedTakeovers(false).size());
    }

    /** The store said the claim replaced nothing while the takeover before it still held the key: not explained. */
    @Test
    void aFreshClaimAfterATakeoverThatWasNotReleasedIsUnexplained() {
        SoakFindings f = findings("CLAIMED " + KEY + " 20 IN_PROGRESS 10", "TAKEOVER " + KEY + " 20 111 10",
                "CLAIMED " + KEY + " 30 - 0", "EXECUTED " + KEY + " 30");

        assertEquals(1, f.pairDuplicates(KILLED_PIDS).unexplained().size());
    }

    /** A claim released after taking over silently does not explain the fresh claim after it. */
    @Test
    void aFreshClaimAfterAnUnreportedTakeoverIsUnexplained() {
        SoakFindings f = findings("CLAIMED " + KEY + " 20 IN_PROGRESS 10", "RELEASED " + KEY + " 20",
                "CLAIMED " + KEY + " 30 - 0", "EXECUTED " + KEY + " 30");

        assertEquals(1, f.pairDuplicates(KILLED_PIDS).unexplained().size());
        assertEquals(1, f.unreportedTakeovers(false).size());
    }

    /** The takeover was released, but a fresh claim after it still held the key when the duplicate's was granted. */
    @Test
    void aFreshClaimWhileTheClaimBeforeItHeldTheKeyIsUnexplained() {
        SoakFindings f = findings("CLAIMED " + KEY + " 20 IN_PROGRESS 10", "TAKEOVER " + KEY + " 20 111 10",
                "RELEASED " + KEY + " 20", "CLAIMED " + KEY + " 25 - 0", "CLAIMED " + KEY + " 30 - 0",
                "EXECUTED " + KEY + " 30");

        assertEquals(1, f.pairDuplicates(KILLED_PIDS).unexplained().size());
    }

    @Test
    void aDuplicateOfACompletedExecutionIsUnexplainedWhateverTookOver() {
        SoakFindings f = findings("EXECUTED " + KEY + " 10", "CLAIMED " + KEY + " 20 IN_PROGRESS 10",
                "TAKEOVER " + KEY + " 20 111 10", "RELEASED " + KEY + " 20", "CLAIMED " + KEY + " 30 - 0");

        assertEquals(1, f.pairDuplicates(KILLED_PIDS).unexplained().size());
    }

    /** The kill may fall between the store's answer and the engine's event: a killed claim that ran nothing. */
    @Test
    void aKilledIncarnationsTakeoverThatRanNothingNeedsNoEvent() {
        SoakFindings f = findings();
        f.readLines("w0-1.events", List.of("CLAIMED " + KEY + " 40 IN_PROGRESS 30"), 0, false);

        assertEquals(List.of(), f.unreportedTakeovers(false));
    }

    @Test
    void underReconcileAReconciledTakeoverIsReported() {
        SoakFindings f = findings("CLAIMED " + KEY + " 20 IN_PROGRESS 10", "RECONCILED " + KEY + " 20");

        assertEquals(List.of(), f.unreportedTakeovers(true));
        assertTrue(!f.unreportedTakeovers(false).isEmpty(), "TAKE_OVER wants the TAKEOVER event");
    }
}
