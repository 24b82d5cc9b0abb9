package dev.idem.core.internal.call;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.plan.OperationPlan;
import dev.idem.store.ClaimOutcome;

import java.time.Clock;
import java.time.Instant;

/**
 * Completed results this engine has seen, so a replay costs a key derivation and one cache read, with no store
 * round trip and no decoding. Entries hold the decoded value: replayed results are shared instances, which is why
 * results should be immutable values.
 *
 * <p>Whether an entry still counts is decided from its timestamps at read time (expiry, window); the cache is
 * bounded by size, so stale entries that are never read again are evicted as newer ones arrive.
 *
 * <p>An entry answers only the plan that stored it (by {@link OperationPlan#id}): after a class is reloaded, its
 * new plan must not be handed instances of the old class, and another operation sharing the scope decodes the
 * store's bytes with its own codec. When an operation is planned anew, the old plan's entries are dropped at once
 * ({@link #forgetPlan}), so a discarded class loader is not kept alive by results nobody can use.
 *
 * <p>Entries' times are on this engine's clock. A record's instants are on the store's clock (a database's or a
 * server's now), so they are translated with {@link #storeOffset} before they bound an entry: an engine whose clock
 * is behind the store's would otherwise replay its copy after the record expired in the store.
 */
final class LocalResults {
    private static final int MAX_ENTRIES = 10_000;

    /** A completed result and the times that bound its use. */
    static final class Entry {
        final long planId;
        final Object value;
        final byte[] payloadDigest;
        final long supersedeAtMillis; // start + window; Long.MAX_VALUE without a window
        final long expiresAtMillis;

        Entry(long planId, Object value, byte[] payloadDigest, long supersedeAtMillis, long expiresAtMillis) {
            this.planId = planId;
            this.value = value;
            this.payloadDigest = payloadDigest;
            this.supersedeAtMillis = supersedeAtMillis;
            this.expiresAtMillis = expiresAtMillis;
        }
    }

    private final Clock clock;
    private final Cache<CallKey, Entry> entries;

    LocalResults(Clock clock) {
        this.clock = clock;
        // Size-bounded only: whether an entry counts is decided from its timestamps when it is read (and a stale
        // one removed then), so Caffeine's own expiry would add a second clock read to every replay for nothing.
        // Maintenance on the writing thread: with the default executor every new result (every first call) hands the
        // cache's upkeep to the common pool, waking one of its threads (an unpark, a context switch on a small
        // machine) far more often than the upkeep itself costs.
        this.entries = Caffeine.newBuilder().maximumSize(MAX_ENTRIES).executor(Runnable::run).build();
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
        Entry entry = entries.getIfPresent(key);
        if (entry == null || entry.planId != planId) {
            return null;
        }
        if (!countsNow(entry)) {
            entries.asMap().remove(key, entry);
            return null;
        }
        return entry;
    }

    /**
     * {@link #lookup(long, CallKey)} by a probe standing for the key, which allocates nothing. A stale entry is left
     * for the call's full path to remove (that path looks it up again by its real key), so this only reads.
     */
    Entry lookup(long planId, CallKey.Probe key) {
        Entry entry = entries.asMap().get(key); // the map compares key.equals(stored): a probe equals its key
        if (entry == null || entry.planId != planId) {
            return null;
        }
        return countsNow(entry) ? entry : null;
    }

    /** Whether {@code entry} still counts on the clock read now: not expired, within its window. */
    private boolean countsNow(Entry entry) {
        long now = clock.millis();
        return now < entry.expiresAtMillis && now < entry.supersedeAtMillis;
    }

    void put(CallKey key, Entry entry) {
        entries.put(key, entry);
    }

    /** Drops every entry stored by the plan {@code planId}: it was replaced (its class was reloaded). */
    void forgetPlan(long planId) {
        entries.asMap().values().removeIf(entry -> entry.planId == planId);
    }
}
