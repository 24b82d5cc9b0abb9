package dev.idem;

/** How an {@link Idempotent#window() window} is placed in time. */
public enum WindowAlignment {
    /**
     * The window starts with the first execution; no time bucket enters the key, so no bucket boundary can split a
     * retry storm.
     */
    SLIDING,
    /** The key includes the start of the aligned bucket: {@code window = "1d"} means one per calendar day. */
    FIXED
}
