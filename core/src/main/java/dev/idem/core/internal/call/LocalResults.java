package dev.idem.core.internal.call;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.idem.core.internal.key.CallKey;
import dev.idem.store.ClaimOutcome;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Completed results this engine has seen, so a replay costs a key derivation and one cache read, with no store
 * round trip and no decoding. Entries hold the decoded value: replayed results are shared instances, which is why
 * results should be immutable values.
 *
 * <h2>A Caffeine cache</h2>
 * Bounding and expiring entries is a solved problem, so it is left to Caffeine: a cache bounded to
 * {@value #MAX_ENTRIES} entries (its size policy keeps the keys that are replayed again and again), whose entries
 * expire one by one ({@link Expiry}). An entry's expiry is decided when it is put, from its own record: the first of
 * the record's expiry and the end of the window it was claimed with, both on the engine's clock. From that instant
 * on the cache no longer answers it, whether or not it has yet been removed; no lookup here checks a timestamp.
 *
 * <p>The cache's time ({@link Ticker}) is the engine's injected clock, read to the millisecond as the record's
 * times are, so tests age entries by moving that clock and never sleep.
 *
 * <p>Upkeep (eviction, expiry) runs on the thread that writes, as part of its write, rather than on a pool: it is
 * short, it makes the bound hold as soon as a put returns, and it keeps the engine from depending on the common
 * pool's availability.
 */
final class LocalResults {
    static final int MAX_ENTRIES = 10_000;

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

        /** The instant, in nanoseconds of the cache's ticker, from which this entry no longer counts. */
        long staleAtNanos() {
            return TimeUnit.MILLISECONDS.toNanos(Math.min(supersedeAtMillis, expiresAtMillis)); // saturates
        }
    }

    /**
     * Keyed by {@code Object}, not {@link CallKey}: a {@link CallKey.Probe} looks entries up, and Caffeine hands the
     * key it was given to the expiry policy.
     */
    private final ConcurrentMap<Object, Entry> entries;

    LocalResults(Clock clock) {
        this.entries = Caffeine.newBuilder()
                .maximumSize(MAX_ENTRIES)
                .expireAfter(new UntilStale())
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .executor(Runnable::run)
                .<Object, Entry>build()
                .asMap();
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

    /** The entry the plan {@code planId} stored for {@code key} if it still counts: not expired, within its window. */
    Entry lookup(long planId, CallKey key) {
        return ofPlan(planId, entries.get(key));
    }

    /** {@link #lookup(long, CallKey)} by a probe standing for the key, which allocates nothing. */
    Entry lookup(long planId, CallKey.Probe key) {
        return ofPlan(planId, entries.get(key)); // the map compares key.equals(stored): a probe equals its key
    }

    private static Entry ofPlan(long planId, Entry entry) {
        return entry == null || entry.planId != planId ? null : entry;
    }

    /** Keeps {@code entry} (a new object at every call) for {@code key}, in place of what was kept for it. */
    void put(CallKey key, Entry entry) {
        entries.put(key, entry);
    }

    /** How many entries are kept, once the cache's pending upkeep is done (for tests). */
    int size() {
        return entries.size();
    }

    /** Drops every entry stored by the plan {@code planId}: it was replaced (its class was reloaded). */
    void forgetPlan(long planId) {
        entries.values().removeIf(entry -> entry.planId == planId);
    }

    /** Whether an entry of the plan {@code planId} is still kept (for tests). */
    boolean holdsAnyOf(long planId) {
        return entries.values().stream().anyMatch(entry -> entry.planId == planId);
    }

    /** Each entry counts until its {@link Entry#staleAtNanos()}, however often read; a replacement brings its own. */
    private static final class UntilStale implements Expiry<Object, Entry> {
        @Override
        public long expireAfterCreate(Object key, Entry entry, long currentTime) {
            return Math.max(0, entry.staleAtNanos() - currentTime);
        }

        @Override
        public long expireAfterUpdate(Object key, Entry entry, long currentTime, long currentDuration) {
            return expireAfterCreate(key, entry, currentTime); // a new entry: its own record decides
        }

        @Override
        public long expireAfterRead(Object key, Entry entry, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
