package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Random;

import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Results: stored byte-exact, and copied, so the caller may reuse its array. */
abstract class ResultContract extends ContractGroup {
    ResultContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    void completedResultsRoundTripByteExact() {
        Random random = new Random(42);
        for (int size : new int[] {0, 1, 255, 4096, 1 << 20}) {
            String key = key("bytes-" + size);
            byte[] result = new byte[size];
            random.nextBytes(result);
            if (size > 2) {
                result[0] = 0;
                result[1] = (byte) 0xFF;
            }
            long token = acquire(key, "a");
            Instant before = time().now();
            assertTrue(store().complete(key, token, result.clone(), TTL));
            Instant after = time().now();

            IdempotencyRecord record = stored(key);
            assertEquals(RecordState.COMPLETED, record.state());
            assertArrayEquals(result, record.result(), "result of " + size + " bytes");
            assertStamped("completedAt", before, record.completedAt(), after);
            ClaimOutcome again = claim(key, "b");
            assertArrayEquals(result, existing(again, "a claim of a completed key").result());
        }
    }

    @Test
    void theStoreKeepsItsOwnCopyOfAResultOrFailure() {
        byte[] result = {1, 2, 3};
        String completed = key("copied-result");
        long token = acquire(completed, "a");
        assertTrue(store().complete(completed, token, result, TTL));
        result[0] = 99; // the caller reuses its buffer

        byte[] failure = {4, 5, 6};
        String failed = key("copied-failure");
        long other = acquire(failed, "a");
        assertTrue(store().fail(failed, other, failure, TTL));
        failure[0] = 99;

        assertArrayEquals(new byte[] {1, 2, 3}, stored(completed).result(),
                "changing the caller's array after complete must not change the stored result");
        assertArrayEquals(new byte[] {4, 5, 6}, stored(failed).result(),
                "changing the caller's array after fail must not change the stored failure");
    }
}
