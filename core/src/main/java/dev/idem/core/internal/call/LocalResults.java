package dev.idem.core.internal.call;

import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.store.ClaimOutcome;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Completed results this engine has seen, so a replay costs a key derivation and one cache read, with no store
 * round trip and no decoding. Entries hold the decoded value: replayed results are shared instances, which is why
 * results should be immutable values.
 *
 * <p>Whether an entry still counts is decided from its timestamps at read time (expiry, window); the cache is
 * bounded by size, so stale entries that are never read again are evicted as newer ones arrive.
 *
 * <h2>Bounded by a clock of stripes</h2>
 * A lookup is one read of a {@link ConcurrentHashMap}. What bounds the map is a CLOCK ("second chance") of
 * {@value #MAX_ENTRIES} slots split into {@value #STRIPES} stripes by the key's hash, each with its own lock and hand:
 * a new entry takes the slot under its stripe's hand, evicting the entry there unless it was read since the hand last
 * passed (then it only loses that mark). Every entry of the map holds a slot, so the map never holds more than
 * {@value #MAX_ENTRIES} entries; a slot whose entry was replaced or removed holds nothing the map keeps and is
 * reused by the next pass.
 *
 * <p>Why not a general cache (this was Caffeine's W-TinyLFU, {@code maximumSize}): every first call puts a new result,
 * and at 8 calling threads of a Redis-backed fresh call its write buffer, admission and upkeep took about 13% of the
 * calling threads' CPU samples. Frequency-based admission buys a better hit ratio for a mix of keys; what matters here
 * is that keys replayed again and again stay, which the second chance gives.
 */
final class LocalResults {
    static final int MAX_ENTRIES = 10_000;
    /** A power of two, so a key's stripe is a mask of its hash; enough that callers of 2..16 threads rarely meet. */
    static final int STRIPES = 16;

    /** A completed result and the times that bound its use. */
    static final class Entry {
        final long planId;
        final Object value;
        final byte[] payloadDigest;
        final long supersedeAtMillis; // start + window; Long.MAX_VALUE without a window
        final long expiresAtMillis;
        /** Read since its stripe's hand last passed it: spared once. A racy mark; a lost one only evicts earlier. */
        boolean read;

        Entry(long planId, Object value, byte[] payloadDigest, long supersedeAtMillis, long expiresAtMillis) {
            this.planId = planId;
            this.value = value;
            this.payloadDigest = payloadDigest;
            this.supersedeAtMillis = supersedeAtMillis;
            this.expiresAtMillis = expiresAtMillis;
        }
    }

    private final Clock clock;
    private final ConcurrentHashMap<CallKey, Entry> entries = new ConcurrentHashMap<>(MAX_ENTRIES * 4 / 3 + 1);
    private final Stripe[] stripes = new Stripe[STRIPES];

    /** One stripe's slots and hand; guarded by the stripe itself. */
    private static final class Stripe {
        final CallKey[] keys = new CallKey[MAX_ENTRIES / STRIPES];
        final Entry[] values = new Entry[MAX_ENTRIES / STRIPES];
        int hand;
    }

    LocalResults(Clock clock) {
        this.clock = clock;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    /**
     * What to add to an instant of the store's clock to read it on {@code clock}: the engine's time when the claim's
     * answer is handled minus the store's time when it answered, or 0 when the store did not report its time. Later
     * than the true offset by at most the answer's way back, so an entry may outlive its record by that much.
     */
    static long storeOffset(ClaimOutcome answer, Clock clock) {
        Instant storeTime = answer.storeTime();
        return storeTime == null ? 0 : clock.millis() - storeTime.toEpochMilli();
    }

    /** The entry the plan {@code planId} stored for {@code key} if it still counts now: not expired, within its window. */
    Entry lookup(long planId, CallKey key) {
        Entry entry = entries.get(key);
        if (entry == null || entry.planId != planId) {
            return null;
        }
        if (!countsNow(entry)) {
            entries.remove(key, entry);
            return null;
        }
        markRead(entry);
        return entry;
    }

    /**
     * {@link #lookup(long, CallKey)} by a probe standing for the key, which allocates nothing. A stale entry is left
     * for the call's full path to remove (that path looks it up again by its real key), so this only reads.
     */
    Entry lookup(long planId, CallKey.Probe key) {
        Entry entry = entries.get(key); // the map compares key.equals(stored): a probe equals its key
        if (entry == null || entry.planId != planId || !countsNow(entry)) {
            return null;
        }
        markRead(entry);
        return entry;
    }

    /** Spares {@code entry} at its hand's next pass; written only when not yet marked, so hot keys' reads share it. */
    private static void markRead(Entry entry) {
        if (!entry.read) {
            entry.read = true;
        }
    }

    /** Whether {@code entry} still counts on the clock read now: not expired, within its window. */
    private boolean countsNow(Entry entry) {
        long now = clock.millis();
        return now < entry.expiresAtMillis && now < entry.supersedeAtMillis;
    }

    /** Keeps {@code entry} (a new object at every call) for {@code key}, in place of what was kept for it. */
    void put(CallKey key, Entry entry) {
        Stripe stripe = stripes[spread(key.hashCode()) & (STRIPES - 1)];
        synchronized (stripe) { // every put of a key takes the same stripe, so the map and the slots agree
            Entry[] values = stripe.values;
            int n = values.length;
            int hand = stripe.hand;
            // Past one full turn every mark was cleared, so the loop ends within two; bounded anyway, should reads
            // mark entries as fast as the hand clears them.
            for (int step = 0; ; step++) {
                Entry there = values[hand];
                if (there == null) {
                    break;
                }
                CallKey thereKey = stripe.keys[hand];
                if (there.read && step < 2 * n && entries.get(thereKey) == there) {
                    there.read = false;
                } else {
                    entries.remove(thereKey, there); // a no-op when the map no longer holds it
                    break;
                }
                hand = hand + 1 == n ? 0 : hand + 1;
            }
            stripe.keys[hand] = key;
            values[hand] = entry;
            stripe.hand = hand + 1 == n ? 0 : hand + 1;
            entries.put(key, entry);
        }
    }

    private static int spread(int h) {
        return h ^ (h >>> 16);
    }

    /** How many entries are kept (for tests). */
    int size() {
        return entries.size();
    }

    /** Drops every entry stored by the plan {@code planId}: it was replaced (its class was reloaded). */
    void forgetPlan(long planId) {
        // The slots too, under their stripe's lock as a put: they would keep the old plan's values, and so its
        // class loader, until their hand passed.
        for (Stripe stripe : stripes) {
            synchronized (stripe) {
                for (int i = 0; i < stripe.values.length; i++) {
                    Entry there = stripe.values[i];
                    if (there != null && there.planId == planId) {
                        entries.remove(stripe.keys[i], there);
                        stripe.values[i] = null;
                        stripe.keys[i] = null;
                    }
                }
            }
        }
        entries.values().removeIf(entry -> entry.planId == planId);
    }

    /** Whether a slot still references an entry of the plan {@code planId} (for tests). */
    boolean holdsAnyOf(long planId) {
        for (Stripe stripe : stripes) {
            synchronized (stripe) {
                for (Entry there : stripe.values) {
                    if (there != null && there.planId == planId) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
