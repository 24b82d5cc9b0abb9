package dev.idem.core.internal.call;

import dev.idem.core.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The heartbeat's own threads exist only once an execution needs them, and end with the heartbeat. */
@Timeout(30)
class LeaseHeartbeatThreadsTest {
    private static final LeaseHeartbeat.LostLease IGNORED = (operation, key, token) -> { };

    @Test
    void noThreadStartsBeforeTheFirstBeatAndTheSweepThreadEndsWithClose() throws InterruptedException {
        Set<Thread> before = heartbeatThreads();
        LeaseHeartbeat heartbeat = new LeaseHeartbeat(Clock.systemUTC(), null, IGNORED);
        Set<Thread> started;
        try {
            assertEquals(Set.of(), startedSince(before), "a heartbeat with nothing to renew starts no thread");
            heartbeat.start(new InMemoryIdempotencyStore(), "op", "k", 1, Duration.ofSeconds(30)).stop();
            heartbeat.start(new InMemoryIdempotencyStore(), "op", "k2", 2, Duration.ofSeconds(30)).stop();
            started = startedSince(before);
            assertEquals(1, started.size(), "one sweep thread for every beat: " + started);
            assertTrue(started.iterator().next().isDaemon(), "the sweep thread never keeps a JVM alive");
        } finally {
            heartbeat.close();
        }
        for (Thread t : started) {
            t.join(Duration.ofSeconds(20).toMillis());
            assertFalse(t.isAlive(), "closing the heartbeat ends its sweep thread");
        }
    }

    @Test
    void aClosedHeartbeatStartsNoThreadForALateBeat() {
        Set<Thread> before = heartbeatThreads();
        LeaseHeartbeat heartbeat = new LeaseHeartbeat(Clock.systemUTC(), null, IGNORED);
        heartbeat.close();
        heartbeat.start(new InMemoryIdempotencyStore(), "op", "k", 1, Duration.ofSeconds(30)).stop();
        assertEquals(Set.of(), startedSince(before));
    }

    private static Set<Thread> startedSince(Set<Thread> before) {
        Set<Thread> now = heartbeatThreads();
        now.removeAll(before);
        return now;
    }

    private static Set<Thread> heartbeatThreads() {
        Set<Thread> threads = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("idem-lease-") && t.isAlive()) {
                threads.add(t);
            }
        }
        return threads;
    }
}
