package dev.idem.store;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of SEMANTICS.md section 4 and the only legal moves between them. {@link #ABSENT} is never stored: it
 * is what a missing or expired record means.
 */
public enum RecordState {
    /** No live record: none was stored, or it expired, was released or was deleted; the next claim is acquired. */
    ABSENT,
    /** Claimed and running: the owner holds the key with its token; once its lease passes a claim may take over. */
    IN_PROGRESS,
    /** Finished with a stored result, returned to duplicates until the record expires or the window passes. */
    COMPLETED,
    /** Finished with a remembered failure, replayed to duplicates until the record expires or the window passes. */
    FAILED;

    /**
     * The states this one may move to. IN_PROGRESS to IN_PROGRESS is a takeover after the lease passed.
     *
     * @return IN_PROGRESS from ABSENT; IN_PROGRESS, COMPLETED, FAILED or ABSENT (a release) from IN_PROGRESS; ABSENT
     *         or IN_PROGRESS (a claim once the record expired or the window passed) from COMPLETED and FAILED
     */
    public Set<RecordState> successors() {
        switch (this) {
            case ABSENT:
                return EnumSet.of(IN_PROGRESS);
            case IN_PROGRESS:
                return EnumSet.of(IN_PROGRESS, COMPLETED, FAILED, ABSENT);
            case COMPLETED:
            case FAILED:
                return EnumSet.of(ABSENT, IN_PROGRESS);
            default:
                throw new AssertionError(this);
        }
    }

    /**
     * Returns {@code next} when the move is legal, and throws {@link IllegalStateException} otherwise.
     *
     * @param next the state to move to
     * @return {@code next}, when it is one of {@link #successors()}
     * @throws IllegalStateException when the move is not legal, naming both states
     */
    public RecordState moveTo(RecordState next) {
        if (!Successors.OF[ordinal()].contains(next)) {
            throw new IllegalStateException("illegal idempotency record transition " + this + " -> " + next);
        }
        return next;
    }

    /** {@link #successors()} of every state, made once: {@link #moveTo} is on the path of every completion. */
    private static final class Successors {
        static final Set<RecordState>[] OF = table();

        @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array can only be made raw
        private static Set<RecordState>[] table() {
            RecordState[] states = values();
            Set<RecordState>[] of = new Set[states.length];
            for (RecordState s : states) {
                of[s.ordinal()] = s.successors();
            }
            return of;
        }
    }
}
