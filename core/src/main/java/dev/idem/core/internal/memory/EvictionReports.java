package dev.idem.core.internal.memory;

import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.internal.call.EvictionTally;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * The listeners of a store's evictions and the {@link IdempotencyEventType#EVICTED EVICTED} events they get, one per
 * record the bound forced out while it still counted. Events are delivered on the writing thread, after the
 * eviction; a listener that throws is logged and does not stop the others.
 */
public final class EvictionReports {
    private static final System.Logger LOG = System.getLogger("dev.idem.core.InMemoryIdempotencyStore");

    private final CopyOnWriteArrayList<IdempotencyListener> listeners = new CopyOnWriteArrayList<>();
    /** A record's scope as its key carries it: the event's operation (the store does not know the method). */
    private final Function<String, String> scopeOfKey;

    /** @param scopeOfKey the scope an event names for a record's key */
    public EvictionReports(Function<String, String> scopeOfKey) {
        this.scopeOfKey = scopeOfKey;
    }

    /** Registers {@code listener}; registering it twice registers it once. */
    public void add(IdempotencyListener listener) {
        listeners.addIfAbsent(Objects.requireNonNull(listener, "listener"));
    }

    /** Unregisters {@code listener}. */
    public void remove(IdempotencyListener listener) {
        listeners.remove(listener);
    }

    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    /**
     * Tells every listener of each record in {@code evicted}, evicted at {@code now} because the store held
     * {@code sizeBefore} records of about {@code bytesBefore} bytes, over {@code maximumSize} or {@code maximumBytes}.
     */
    void report(List<MemoryRecord> evicted, long now, long sizeBefore, long bytesBefore, long maximumSize,
                long maximumBytes) {
        String because = null;
        StringBuilder b = null;
        for (MemoryRecord e : evicted) {
            IdempotencyEvent event = null;
            for (IdempotencyListener listener : listeners) {
                try {
                    if (listener instanceof EvictionTally tally && !tally.wantsEvent()) {
                        tally.skipped(); // the engine counting, with no one to read this event
                        continue;
                    }
                    if (event == null) {
                        if (because == null) {
                            // Under a flood every write evicts a record or so, each reported: the part every detail
                            // shares is made once per batch, and each detail in one builder.
                            String bound = sizeBefore > maximumSize
                                    ? "the store held " + sizeBefore + " records, over idem.memory.maximumSize = "
                                    + maximumSize
                                    : "the store held about " + bytesBefore + " bytes in " + sizeBefore
                                    + " records, over idem.memory.maximumBytes = " + maximumBytes;
                            because = " before it would have expired) because " + bound
                                    + "; a duplicate of this key may run again";
                            b = new StringBuilder(64 + because.length());
                        }
                        event = evictedEvent(e, now, because, b);
                    }
                    listener.onEvent(event);
                } catch (RuntimeException ex) {
                    LOG.log(Level.WARNING, "eviction listener " + listener + " threw", ex);
                }
            }
        }
    }

    private IdempotencyEvent evictedEvent(MemoryRecord e, long now, String because, StringBuilder b) {
        b.setLength(0);
        b.append(e.state).append(" record evicted at age ");
        appendSeconds(b, Math.floorDiv(now - e.startedAt, 1_000L));
        b.append(" (");
        appendSeconds(b, Math.floorDiv(e.expiresAt - now, 1_000L));
        String detail = b.append(because).toString();
        return new IdempotencyEvent(IdempotencyEventType.EVICTED, scopeOfKey.apply(e.key), e.key, e.token, detail,
                null);
    }

    /** Appends {@code seconds} (0s if negative) as {@code 1d2h3m4s}, leaving out the parts that are zero. */
    private static void appendSeconds(StringBuilder b, long seconds) {
        long s = Math.max(0, seconds);
        int start = b.length();
        if (s >= 86_400) {
            b.append(s / 86_400).append('d');
        }
        if (s % 86_400 >= 3_600) {
            b.append(s % 86_400 / 3_600).append('h');
        }
        if (s % 3_600 >= 60) {
            b.append(s % 3_600 / 60).append('m');
        }
        if (s % 60 > 0 || b.length() == start) {
            b.append(s % 60).append('s');
        }
    }
}
