package dev.idem.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.store.TtlJitter;
import jakarta.annotation.Nonnull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * The embedded default store ({@code idem.store=memory}): records in this JVM's memory, on Caffeine with
 * per-record expiry. Right for one process; processes that share work need a shared store.
 *
 * <p>Every operation is one atomic {@code compute} on the record's key, so a claim decides and answers in one
 * step. Fencing tokens come from one counter for the whole store, so they keep increasing across release and
 * expiry of a key. Outcomes are decided from the records' timestamps at read time; Caffeine evicts a record only
 * after it stopped counting (an in-progress record a grace period after its lease, so that a takeover still sees
 * what it replaced).
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {
    private static final Duration IN_PROGRESS_GRACE = Duration.ofMinutes(10);

    private final Clock clock;
    private final Cache<String, IdempotencyRecord> records;
    private final AtomicLong tokens = new AtomicLong();
    private volatile boolean closed;

    /**
     * A store stamping records with {@code clock}.
     *
     * @param clock the clock records are stamped with and expire by
     */
    public InMemoryIdempotencyStore(@Nonnull Clock clock) {
        this.clock = clock;
        this.records = Caffeine.newBuilder()
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .expireAfter(new Expiry<String, IdempotencyRecord>() {
                    @Override
                    public long expireAfterCreate(String key, IdempotencyRecord r, long currentTime) {
                        Instant until = r.state() == RecordState.IN_PROGRESS
                                ? r.leaseUntil().plus(IN_PROGRESS_GRACE) : r.expiresAt();
                        return Math.max(0, TimeUnit.MILLISECONDS.toNanos(until.toEpochMilli()) - currentTime);
                    }

                    @Override
                    public long expireAfterUpdate(String key, IdempotencyRecord r, long currentTime, long current) {
                        return expireAfterCreate(key, r, currentTime);
                    }

                    @Override
                    public long expireAfterRead(String key, IdempotencyRecord r, long currentTime, long current) {
                        return current;
                    }
                })
                .build();
    }

    /** A store on the system clock. */
    public InMemoryIdempotencyStore() {
        this(Clock.systemUTC());
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        ensureOpen();
        Instant now = clock.instant();
        ClaimOutcome[] outcome = new ClaimOutcome[1];
        records.asMap().compute(request.key(), (key, existing) -> {
            IdempotencyRecord live = existing == null || existing.isExpiredAt(now) ? null : existing;
            if (live != null && !live.isClaimableAt(now, request.window())) {
                outcome[0] = new ClaimOutcome.Existing(live);
                return live;
            }
            long token = tokens.incrementAndGet();
            boolean takeover = live != null && live.state() == RecordState.IN_PROGRESS;
            Instant startedAt = takeover ? live.startedAt() : now;
            outcome[0] = new ClaimOutcome.Acquired(token, live);
            return IdempotencyRecord.inProgress(key, request.payloadHash(), request.owner(), token, startedAt,
                    now.plus(request.lease()));
        });
        return outcome[0];
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        return finish(key, fencingToken, RecordState.COMPLETED, result, ttl);
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        return finish(key, fencingToken, RecordState.FAILED, failure, failureTtl);
    }

    private boolean finish(String key, long token, RecordState state, byte[] encoded, Duration ttl) {
        byte[] copy = encoded.clone();
        return updateCurrentClaim(key, token, (r, now) -> r.finished(state, copy, now, TtlJitter.expiresAt(now, ttl)));
    }

    @Override
    public boolean release(String key, long fencingToken) {
        return updateCurrentClaim(key, fencingToken, (r, now) -> null);
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        return updateCurrentClaim(key, fencingToken, (r, now) -> r.withLease(now.plus(lease)));
    }

    /**
     * The fenced write every operation after the claim shares: applies {@code update} (null removes the record)
     * atomically, and only if {@code token} is still the key's current claim and that claim is in progress.
     */
    private boolean updateCurrentClaim(String key, long token,
                                       BiFunction<IdempotencyRecord, Instant, IdempotencyRecord> update) {
        ensureOpen();
        Instant now = clock.instant();
        boolean[] applied = new boolean[1];
        records.asMap().computeIfPresent(key, (k, r) -> {
            if (r.fencingToken() != token || r.state() != RecordState.IN_PROGRESS) {
                return r;
            }
            applied[0] = true;
            return update.apply(r, now);
        });
        return applied[0];
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        ensureOpen();
        IdempotencyRecord r = records.getIfPresent(key);
        return r == null || r.isExpiredAt(clock.instant()) ? Optional.empty() : Optional.of(r);
    }

    @Override
    public void delete(String key) {
        ensureOpen();
        records.invalidate(key);
    }

    @Override
    public void close() {
        closed = true; // the records go with the store; removing them one by one would only cost time
    }

    private void ensureOpen() {
        if (closed) {
            throw new IdempotencyStoreException("the in-memory idempotency store is closed");
        }
    }
}
