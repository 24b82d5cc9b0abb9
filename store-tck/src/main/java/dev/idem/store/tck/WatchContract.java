package dev.idem.store.tck;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Watches, for a store that offers {@link IdempotencyStore#watch}; each test is skipped, saying so, for one
 * that does not: a completion, failure, release or deletion of the key, through this instance or through another
 * over the same backend, signals a watch opened before it, even when the write comes before the wait; a watch of a key
 * nothing finishes is not signalled by another key's writes and its wait ends at its timeout; an unreachable store
 * refuses to open one.
 */
abstract class WatchContract extends ContractGroup {
    /** How long a watch of a key nothing finishes is watched for a signal that must not come. */
    private static final Duration QUIET = Duration.ofMillis(300);

    WatchContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatchIsSignalledByACompletionFailureReleaseOrDeletionOfItsKey() throws Exception {
        assertFinishingWritesSignal(store(), "through this instance");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatchIsSignalledByWritesThroughAnotherInstance() throws Exception {
        assertFinishingWritesSignal(peerStore(), "through another instance over the same backend");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatchOfAKeyNothingFinishesIsNotSignalledAndItsWaitEnds() throws Exception {
        String key = key("watched-idle");
        String other = key("watched-idle-other");
        acquire(key, "a");
        try (KeyWatch watch = watchOf(key)) {
            long token = acquire(other, "a");
            assertTrue(store().complete(other, token, new byte[] {1}, TTL));
            store().delete(other);

            assertFalse(watch.await(QUIET.toMillis(), TimeUnit.MILLISECONDS),
                    "writes of another key must not signal this key's watch, and its wait must end at its timeout");
        }
    }

    @Test
    void anUnreachableStoreRefusesToOpenAWatch() {
        String key = key("watched-outage");
        try (KeyWatch open = watchOf(key)) {
            assertNotNull(open);
        }
        makeUnreachable(store());

        assertThrows(IdempotencyStoreException.class, () -> store().watch(key));
    }

    /** For each finishing write: a watch opened before it, written through {@code writer}, is signalled. */
    private void assertFinishingWritesSignal(IdempotencyStore writer, String how) throws InterruptedException {
        List<String> writes = List.of("complete", "fail", "release", "delete");
        for (String write : writes) {
            String key = key("watched-" + write);
            long token = acquire(key, "a");
            try (KeyWatch watch = watchOf(key)) {
                switch (write) {
                    case "complete" -> assertTrue(writer.complete(key, token, new byte[] {1}, TTL));
                    case "fail" -> assertTrue(writer.fail(key, token, new byte[] {2}, FAILURE_TTL));
                    case "release" -> assertTrue(writer.release(key, token));
                    default -> writer.delete(key);
                }
                // The write came before the wait: the signal must have been kept for it.
                assertTrue(watch.await(signalledWithin().toMillis(), TimeUnit.MILLISECONDS),
                        () -> "a " + write + " " + how + " must signal a watch of its key opened before it");
            }
        }
    }

    /** A watch of {@code key} through the store under test; the test is skipped when the store offers none. */
    private KeyWatch watchOf(String key) {
        Optional<KeyWatch> watch = store().watch(key);
        assumeTrue(watch.isPresent(), "the store offers no watches (IdempotencyStore.watch is not implemented), so"
                + " the engine polls it and there is nothing to test");
        return watch.get();
    }
}
