package dev.idem.store;

import dev.idem.IdempotencyStoreException;

import java.util.concurrent.TimeUnit;

/**
 * A registration for wake-ups about one key, opened by {@link IdempotencyStore#watch(String)}: how a caller waiting
 * for an execution in another process learns that it ended, instead of asking again and again.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>What signals it.</b> A {@link IdempotencyStore#complete complete}, {@link IdempotencyStore#fail fail},
 *       {@link IdempotencyStore#release release} or {@link IdempotencyStore#delete delete} of the watched key that
 *       took effect after {@code watch} returned, through any store instance over the same backend (any process).
 *       A write that changed nothing (refused by fencing) need not signal.</li>
 *   <li><b>No signal is lost between the check and the wait.</b> The watch is registered when {@code watch}
 *       returns; a signal that arrives before {@link #await} is kept, and the next {@code await} returns
 *       {@code true} at once. So a waiter opens the watch first, then reads (claims) the record, then awaits: a
 *       change after its read always wakes it.</li>
 *   <li><b>Spurious wake-ups are allowed</b> (the store lost its subscription and cannot tell what it missed, a
 *       write of the key that changed nothing), so a woken caller always reads the record again; a store keeps them
 *       rare. A key nothing writes is not signalled.</li>
 *   <li><b>It never blocks forever.</b> {@link #await} returns by its timeout at the latest; a signal can still be
 *       lost (a message dropped on a broken connection, an owner that died and will never finish), which is why a
 *       waiter also reads the record again now and then (the engine's {@code idem.waitRecheck}).</li>
 *   <li>One thread awaits a watch at a time. {@link #close()} unregisters it; closing twice does nothing, and
 *       {@code await} on a closed watch returns {@code false} at once.</li>
 * </ul>
 */
public interface KeyWatch extends AutoCloseable {

    /**
     * Waits until the watch is signalled or {@code timeout} passes, and consumes the signal.
     *
     * @param timeout the longest wait; zero or less returns at once, telling whether a signal is pending
     * @param unit    the unit of {@code timeout}
     * @return {@code true} when a signal arrived since the watch was opened or since the last {@code await} that
     *         returned {@code true}; {@code false} when the timeout passed first or the watch is closed
     * @throws InterruptedException when the waiting thread is interrupted
     */
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Unregisters the watch and frees what it holds (a store may stop listening for the key when its last watch
     * closes). Never throws, and never waits for the backend: it does not report {@link IdempotencyStoreException}.
     */
    @Override
    void close();
}
