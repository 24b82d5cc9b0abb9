package dev.idem.core.internal.key;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SEMANTICS.md section 1: a key is {@code idem:{namespace}:{scope}:{hash}}; one call, one key. */
class CallKeyTest {

    @Test
    void theTextIsNamespaceScopeAndTheHashIn32HexDigits() {
        CallKey key = new CallKey("prod", "lab:daily", 0x0123456789abcdefL, 0xfedcba9876543210L);
        assertEquals("idem:prod:lab:daily:0123456789abcdeffedcba9876543210", key.toString());
        assertEquals(key.toString(), key.toString());
    }

    @Test
    void keysAreEqualExactlyWhenScopeAndBothHalvesOfTheHashAre() {
        CallKey key = new CallKey("prod", "s", 1, 2);
        CallKey same = new CallKey("prod", "s", 1, 2);
        assertEquals(key, same);
        assertEquals(key.hashCode(), same.hashCode());
        assertEquals(key, key);
        assertNotEquals(key, new CallKey("prod", "t", 1, 2));
        assertNotEquals(key, new CallKey("prod", "s", 3, 2));
        assertNotEquals(key, new CallKey("prod", "s", 1, 3));
        assertNotEquals(key, null);
        assertNotEquals(key, key.toString());
    }

    @Test
    void keysSpreadInHashTables() {
        Set<Integer> hashes = new HashSet<>();
        for (long i = 0; i < 64; i++) {
            hashes.add(new CallKey("n", "s", i << 40, 0).hashCode());
            hashes.add(new CallKey("n", "s" + i, 7, 0).hashCode());
        }
        assertTrue(hashes.size() > 100, "distinct keys get distinct hash codes: " + hashes.size());
    }
}
