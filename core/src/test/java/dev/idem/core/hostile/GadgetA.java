package dev.idem.core.hostile;

import java.io.Serializable;

/**
 * The decoy a poisoned stream is written from: same shape and serialVersionUID as {@link GadgetB}, whose name the
 * test then writes into the stream, so the test never initialises {@code GadgetB} itself.
 */
public final class GadgetA implements Serializable {
    private static final long serialVersionUID = 1L;
    public String command = "touch /tmp/pwned";
}
