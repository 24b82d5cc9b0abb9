package dev.idem.core.internal.codec;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.CancellationException;

/**
 * Failures that belong to the execution that met them, not to the operation: an {@link Error} (out of memory, a
 * stack overflow, a linkage problem of this JVM) and an interrupt or cancellation of the thread or stage that ran
 * it. They are rethrown to the caller who ran the method, never remembered by {@code failureTtl} or
 * {@code noRetryFor}, and never handed to coalesced callers, who were not interrupted: those run the call again.
 */
public final class PersonalFailures {
    private static final int MAX_CAUSES = 8;

    private PersonalFailures() {
    }

    /**
     * Whether {@code failure} is personal. {@code threadInterrupted} is the running thread's interrupt flag when
     * the failure came out of the method on that thread (a library that wraps an {@code InterruptedException}
     * usually restores the flag), false for failures of a stage completed elsewhere.
     */
    public static boolean isPersonal(Throwable failure, boolean threadInterrupted) {
        if (threadInterrupted) {
            return true;
        }
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
            if (isPersonalType(t.getClass())) {
                return true;
            }
        }
        return false;
    }

    /** Errors, interrupts and cancellations, by type (a socket timeout is a timeout, not an interrupt). */
    static boolean isPersonalType(Class<?> type) {
        return Error.class.isAssignableFrom(type)
                || InterruptedException.class.isAssignableFrom(type)
                || ClosedByInterruptException.class.isAssignableFrom(type)
                || CancellationException.class.isAssignableFrom(type)
                || (InterruptedIOException.class.isAssignableFrom(type)
                && !SocketTimeoutException.class.isAssignableFrom(type));
    }
}
