package dev.idem.core.internal.retry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/** The chain a failure and its causes form, bounded and cycle-safe, for readers that look through wrappers. */
final class Causes {
    private static final int MAX_CAUSES = 8;

    private Causes() {
    }

    /** {@code failure} and its causes, outermost first, at most {@value #MAX_CAUSES}, each once. */
    static List<Throwable> of(Throwable failure) {
        List<Throwable> chain = new ArrayList<>(2);
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && chain.size() < MAX_CAUSES && seen.add(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }
}
