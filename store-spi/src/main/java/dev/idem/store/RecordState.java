package dev.idem.store;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of SEMANTICS.md section 4 and the only legal moves between them. {@link #ABSENT} is never stored: it
 * is what a missing or expired record means.
 */
public enum RecordState {
    ABSENT,
    IN_PROGRESS,
    COMPLETED,
    FAILED;

    /** The states this one may move to. IN_PROGRESS to IN_PROGRESS is a takeover after the lease passed. */
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

    /** Returns {@code next} when the move is legal, and throws {@link IllegalStateException} otherwise. */
    public RecordState moveTo(RecordState next) {
        if (!successors().contains(next)) {
            throw new IllegalStateException("illegal idempotency record transition " + this + " -> " + next);
        }
        return next;
    }
}
