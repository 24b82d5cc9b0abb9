package dev.idem.core.hostile;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A class outside every allow-list that poisoned bytes name. Its static initialiser and its {@code readObject}
 * record that they ran, so "decoding instantiated nothing" is observed, not assumed. No test refers to it except by
 * name, so nothing else initialises it.
 */
public final class GadgetB implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = "dev.idem.core.hostile.GadgetB";

    /** What ran: "initialised", "deserialised". Held elsewhere, so reading it does not initialise GadgetB. */
    public static final class Log {
        public static final List<String> EVENTS = Collections.synchronizedList(new ArrayList<>());

        private Log() {
        }
    }

    static {
        Log.EVENTS.add("initialised");
    }

    public String command;

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        Log.EVENTS.add("deserialised");
        in.defaultReadObject();
    }
}
