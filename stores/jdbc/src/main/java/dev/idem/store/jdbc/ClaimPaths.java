package dev.idem.store.jdbc;

/**
 * Chooses PostgreSQL's first claim statement (outside the transactional mode) from what recent claims of the store
 * found: insert first while nearly all of them found their key absent, read first otherwise.
 *
 * <h2>Why two statements</h2>
 * Reading the key's row first ({@code WITH old AS (SELECT ...), ins AS (INSERT ... WHERE NOT EXISTS (old))}) answers
 * every claim in one round trip, and a replay or a caller of a running execution with a plain read that writes
 * nothing. It costs a first call the larger statement: PostgreSQL sets up every node of a plan at each execution, so
 * the read, the union and the common table expressions cost the server CPU even when the key is new. A plain
 * {@code INSERT ... ON CONFLICT DO NOTHING RETURNING} is the least a first call can send; on a key that has a row it
 * writes nothing either (the conflict is found before any tuple is written, and waits only on a transaction that is
 * writing the row), but the row must then be read by a second statement. With new keys the insert-first claim comes
 * nearer a bare insert and update of the same row than the read-first claim does (docs/benchmarks.md).
 *
 * <p>So when traffic is made of new keys (an HTTP {@code Idempotency-Key} on every request) the claim inserts first,
 * and when it is made of repeats (retries, replays, duplicates of a running job) it reads first, and a replay stays
 * one round trip. A wrong guess costs one round trip (insert first on a key that has a row), or some of the server's
 * CPU (read first on a new key), never a wrong answer: both paths decide the same claims.
 *
 * <h2>The estimate</h2>
 * An exponentially weighted share of recent claims that found their key absent, each claim weighing 1/16, in fixed
 * point. The claim inserts first while the share is at least 3/4: about 20 first calls in a row switch a store that
 * starts reading first (as a new store does, so a replay-heavy application never pays the extra round trip), and
 * five repeats in a row switch it back. It is one plain {@code int} that every claim reads and writes without a
 * lock: two claims that update it at once lose one of the two updates, which only delays the estimate by a claim,
 * and a stale read only chooses the other correct path.
 */
final class ClaimPaths {
    /** The share's fixed-point one. */
    private static final int ONE = 1 << 16;
    /** Each claim moves the share by (outcome - share) / 2^WEIGHT_SHIFT. */
    private static final int WEIGHT_SHIFT = 4;
    /** The share of absent keys from which the claim inserts first. */
    static final int INSERT_FIRST_FROM = ONE * 3 / 4;

    /** Which statement a claim starts with; for tests, a store that always starts with one. */
    enum Start {
        ADAPTIVE, READ_FIRST, INSERT_FIRST
    }

    private final Start start;
    /** The share of recent claims that found their key absent, 0 to {@link #ONE}; see the class. */
    private int absentShare;

    ClaimPaths(Start start) {
        this.start = start;
    }

    /** Whether the next claim should start with the plain insert. */
    boolean insertFirst() {
        return switch (start) {
            case ADAPTIVE -> absentShare >= INSERT_FIRST_FROM;
            case READ_FIRST -> false;
            case INSERT_FIRST -> true;
        };
    }

    /** Records what one claim found: its key absent (it inserted the row) or not. Call once per claim. */
    void found(boolean absent) {
        int share = absentShare;
        absentShare = share + (((absent ? ONE : 0) - share) >> WEIGHT_SHIFT);
    }
}
