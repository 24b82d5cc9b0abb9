package dev.idem.core.internal.key;

import org.junit.jupiter.api.Test;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
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

    @Test
    void aProbeEqualsAndHashesAsTheKeyItStandsForBothWays() {
        CallKey key = new CallKey("prod", "s", 1, 2);
        CallKey.Probe probe = new CallKey.Probe().set("prod", "s", 1, 2, null);
        assertEquals(probe, key);
        assertEquals(key, probe);
        assertEquals(key.hashCode(), probe.hashCode());
        assertEquals(key.toString(), probe.toString());
        assertEquals(key, probe.toKey());

        for (CallKey other : new CallKey[] {new CallKey("prod", "t", 1, 2), new CallKey("prod", "s", 3, 2),
                new CallKey("prod", "s", 1, 3)}) {
            assertNotEquals(probe, other);
            assertNotEquals(other, probe);
        }
        assertFalse(probe.equals(null));
        assertFalse(probe.equals(key.toString()));
    }

    @Test
    void aProbeWithTheLiteralPrefixGivesTheKeysText() {
        String prefix = CallKey.keyPrefix("prod", "lab:daily");
        CallKey.Probe probe = new CallKey.Probe().set("prod", "lab:daily", 0x0123456789abcdefL, 0xfedcba9876543210L,
                prefix);
        assertEquals("idem:prod:lab:daily:0123456789abcdeffedcba9876543210", probe.toString());
    }

    @Test
    void aMapKeyedByCallKeysFindsTheEntryByAProbeAndOnlyTheRightOne() {
        // What the local results rely on: the replay looks its entry up with the encoder's probe.
        CallKey stored = new CallKey("prod", "s", 41, 42);
        Object entry = new Object();
        Cache<CallKey, Object> cache = Caffeine.newBuilder().maximumSize(10).executor(Runnable::run).build();
        cache.put(stored, entry);
        ConcurrentHashMap<CallKey, Object> map = new ConcurrentHashMap<>();
        map.put(stored, entry);

        CallKey.Probe probe = new CallKey.Probe();
        assertSame(entry, cache.asMap().get(probe.set("prod", "s", 41, 42, null)));
        assertSame(entry, map.get(probe));
        assertNull(cache.asMap().get(probe.set("prod", "s", 41, 43, null)), "another hash");
        assertNull(map.get(probe));
        assertNull(cache.asMap().get(probe.set("prod", "t", 41, 42, null)), "another scope");
        assertNull(map.get(probe));
    }
}
