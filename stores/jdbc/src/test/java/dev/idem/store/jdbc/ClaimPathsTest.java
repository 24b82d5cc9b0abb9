package dev.idem.store.jdbc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClaimPathsTest {
    @Test
    void aNewStoreReadsFirstAndInsertsFirstOnceNearlyAllRecentClaimsFoundTheirKeyAbsent() {
        ClaimPaths paths = new ClaimPaths(ClaimPaths.Start.ADAPTIVE);
        assertFalse(paths.insertFirst(), "a new store reads first: a replay-heavy application never pays more");
        int absent = 0;
        while (!paths.insertFirst()) {
            paths.found(true);
            absent++;
            assertTrue(absent <= 30, "still reading first after " + absent + " new keys in a row");
        }
        assertTrue(absent >= 10, "one short run of new keys does not switch: " + absent);
    }

    @Test
    void aFewRepeatsInARowSwitchBackToReadingFirst() {
        ClaimPaths paths = new ClaimPaths(ClaimPaths.Start.ADAPTIVE);
        for (int i = 0; i < 200; i++) {
            paths.found(true);
        }
        assertTrue(paths.insertFirst());
        int repeats = 0;
        while (paths.insertFirst()) {
            paths.found(false);
            repeats++;
            assertTrue(repeats <= 8, "still inserting first after " + repeats + " repeats in a row");
        }
        assertTrue(repeats >= 2, "one repeat among new keys does not switch: " + repeats);
    }

    @Test
    void aMixOfOneRepeatInThreeKeepsReadingFirst() {
        ClaimPaths paths = new ClaimPaths(ClaimPaths.Start.ADAPTIVE);
        for (int i = 0; i < 3_000; i++) {
            paths.found(i % 3 != 0);
            if (i > 100) {
                assertFalse(paths.insertFirst(), "a third of the claims would pay a second round trip, at " + i);
            }
        }
    }

    @Test
    void aMixOfOneRepeatInTwentySettlesOnInsertingFirst() {
        ClaimPaths paths = new ClaimPaths(ClaimPaths.Start.ADAPTIVE);
        int insertingFirst = 0;
        for (int i = 0; i < 2_000; i++) {
            paths.found(i % 20 != 0);
            if (i >= 1_000 && paths.insertFirst()) {
                insertingFirst++;
            }
        }
        assertTrue(insertingFirst > 900, "inserting first in " + insertingFirst + " of the last 1,000 claims");
    }

    @Test
    void aFixedStartIgnoresWhatClaimsFound() {
        ClaimPaths reading = new ClaimPaths(ClaimPaths.Start.READ_FIRST);
        ClaimPaths inserting = new ClaimPaths(ClaimPaths.Start.INSERT_FIRST);
        for (int i = 0; i < 100; i++) {
            reading.found(true);
            inserting.found(false);
        }
        assertFalse(reading.insertFirst());
        assertTrue(inserting.insertFirst());
    }
}
