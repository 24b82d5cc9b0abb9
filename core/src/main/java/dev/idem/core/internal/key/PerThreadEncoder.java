package dev.idem.core.internal.key;

import java.lang.ref.WeakReference;

/**
 * Each thread's reusable {@link CanonicalEncoder}: acquired for one derivation and released after it, so that
 * deriving a key allocates no buffer, no digest and no probe.
 *
 * <p>The thread holds its encoder through a {@link WeakReference} only: a thread that outlives the application (a
 * container's pooled thread, a dev-tools restart) then pins no class of Idem's class loader, at the price of a new
 * encoder after a garbage collection cleared the old one. A nested use on the same thread (a canonicaliser that
 * itself calls an idempotent method) finds the thread's encoder lent and gets a new one of its own, which is not
 * kept, rather than corrupting the outer encoding.
 */
final class PerThreadEncoder {
    private static final ThreadLocal<WeakReference<CanonicalEncoder>> HELD = new ThreadLocal<>();

    private PerThreadEncoder() {
    }

    /** This thread's encoder, lent until its {@link CanonicalEncoder#release()}; or a new one if it is lent. */
    static CanonicalEncoder acquire() {
        WeakReference<CanonicalEncoder> held = HELD.get();
        CanonicalEncoder encoder = held == null ? null : held.get();
        if (encoder == null) {
            encoder = new CanonicalEncoder();
            HELD.set(new WeakReference<>(encoder));
        } else if (encoder.lent) {
            encoder = new CanonicalEncoder(); // a nested use: the outer encoding goes on undisturbed
        }
        encoder.lent = true;
        return encoder;
    }

    /** Whether this thread's encoder is acquired and not yet released (for tests). */
    static boolean isLent() {
        WeakReference<CanonicalEncoder> held = HELD.get();
        CanonicalEncoder encoder = held == null ? null : held.get();
        return encoder != null && encoder.lent;
    }
}
