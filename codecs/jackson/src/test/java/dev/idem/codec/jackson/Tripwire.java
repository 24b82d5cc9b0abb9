package dev.idem.codec.jackson;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A class that poisoned bodies name. Jackson could build it (public, no-argument constructor, a setter), so it is
 * never built only if decoding never lets the bytes choose a class. Its static initialiser and constructor record that
 * they ran; no test refers to it other than by name, so nothing else initialises it.
 */
public class Tripwire {
    /** What ran: "initialised", "constructed". Held elsewhere, so reading it does not initialise this class. */
    public static final class Log {
        static final List<String> EVENTS = Collections.synchronizedList(new ArrayList<>());

        private Log() {
        }
    }

    public static final String NAME = "dev.idem.codec.jackson.Tripwire";

    static {
        Log.EVENTS.add("initialised");
    }

    public String x;

    public Tripwire() {
        Log.EVENTS.add("constructed");
    }

    public void setCommand(List<String> command) {
        Log.EVENTS.add("command " + command);
    }
}
