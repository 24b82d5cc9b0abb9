package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.RecordState;
import org.junit.jupiter.api.Test;

import static dev.idem.store.tck.IdempotencyStoreTck.MAX_KEY_LENGTH;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keys: compared exactly (case and trailing space count), kept whole up to 2,048 characters, and independent. */
abstract class KeyContract extends ContractGroup {
    KeyContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    void keysThatDifferOnlyInCaseAreDifferentKeys() {
        String lower = key("order-7f");
        String upper = key("ORDER-7F");
        acquire(lower, "a");

        assertInstanceOf(ClaimOutcome.Acquired.class, claim(upper, "b"),
                "a key that differs only in case is another key (a case-insensitive collation merges them)");
        assertEquals(lower, stored(lower).key());
        assertEquals("a", stored(lower).owner());
        assertEquals(upper, stored(upper).key());
        assertEquals("b", stored(upper).owner());
    }

    @Test
    void keysThatDifferOnlyInTrailingSpaceAreDifferentKeys() {
        String bare = key("order-7f");
        String padded = bare + " ";
        acquire(bare, "a");

        assertInstanceOf(ClaimOutcome.Acquired.class, claim(padded, "b"),
                "a key with a trailing space is another key (a PAD SPACE collation or a trim merges them)");
        assertEquals(bare, stored(bare).key());
        assertEquals("a", stored(bare).owner());
        assertEquals(padded, stored(padded).key(), "the key is kept with its trailing space");
        assertEquals("b", stored(padded).owner());
    }

    @Test
    void keysOf2048CharactersAreKeptWhole() {
        String stem = key("long-");
        String first = stem + "x".repeat(MAX_KEY_LENGTH - stem.length() - 1) + "1";
        String second = first.substring(0, MAX_KEY_LENGTH - 1) + "2";
        long token = acquire(first, "a");

        assertInstanceOf(ClaimOutcome.Acquired.class, claim(second, "b"),
                "keys of " + MAX_KEY_LENGTH + " characters that differ only in the last are different keys"
                        + " (a store that truncates keys merges them)");
        assertTrue(store().complete(first, token, new byte[] {1}, TTL));
        assertEquals(first, stored(first).key(), "the key is kept whole");
        assertEquals(RecordState.COMPLETED, stored(first).state());
        assertEquals(RecordState.IN_PROGRESS, stored(second).state(), "completing one long key leaves the other");
    }

    @Test
    void keysAreIndependent() {
        long a = acquire(key("one"), "a");
        long b = acquire(key("two"), "b");
        assertTrue(store().complete(key("one"), a, new byte[] {1}, TTL));

        assertEquals(RecordState.IN_PROGRESS, stored(key("two")).state());
        assertTrue(store().release(key("two"), b));
        assertEquals(RecordState.COMPLETED, stored(key("one")).state());
    }
}
