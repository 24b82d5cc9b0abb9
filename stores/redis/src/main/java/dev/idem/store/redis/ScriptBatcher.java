package dev.idem.store.redis;

import io.lettuce.core.RedisNoScriptException;
import jakarta.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Gathers the concurrent calls of one script that handles many items in a call ({@link Scripts#CLAIM},
 * {@link Scripts#COMPLETE}) into one {@code EVALSHA}: a group commit. While no call of the script is on its way, an
 * item is sent at once, alone, by the thread that submits it, so a lone caller waits no longer than without the
 * batcher; while one is on its way, items queue, and when its reply comes they leave together, up to
 * {@value #MAX_ITEMS} in one call, sent by Lettuce's event loop thread as it hands the reply out.
 *
 * <p>Why: Redis runs one script call at a time, on the cores the application may share. Each call costs the server a
 * fixed price beyond the items' own work (the script's lookup and set-up, its arguments turned into Lua strings, its
 * reply), and the client a command to build, queue, write and decode; under load the callers' claims meet in flight
 * anyway, and one call for many of them pays that price once. Each item is still applied atomically, as if alone, and
 * each caller still gets its answer in one round trip (its own, or the one it queued behind plus its own).
 *
 * <h2>Failure</h2>
 * An item that cannot be applied (a value that is not the store's under its keys) fails alone: the scripts apply
 * each item under its own error handling and answer it with a reply of its own, which its caller reads as a failure,
 * while the call's other items are applied and answered as usual. A call that fails as a whole (no answer within the
 * timeout, a broken connection, an error reply to the call) fails every item in it at once, as a command failing
 * fails its one caller; a {@code NOSCRIPT} reply (the server forgot the script) loads the script and
 * sends the same call again once, since a script that was not found did not run. A call that got no answer within
 * the timeout stops blocking the queue once a caller's own wait times out ({@link #expireIfStuck}): its items fail,
 * and the next items leave. (No timer per call: the callers' own timeouts already watch every call.) An item whose
 * caller gave up (its future was cancelled) before it left is not sent.
 * The queue never waits for a connection: items leave on the connection open when they do, or fail when there is
 * none.
 */
final class ScriptBatcher {
    /** The most items one call carries: a bound on a call's arguments and on the time the server spends in it. */
    static final int MAX_ITEMS = 64;

    /** One caller's item: its keys and arguments, and where its share of the reply goes. */
    static final class Item {
        final byte[][] keys;
        final byte[][] args;
        final CompletableFuture<Object> reply = new CompletableFuture<>();

        Item(byte[][] keys, byte[][] args) {
            this.keys = keys;
            this.args = args;
        }
    }

    private final Scripts.Script script;
    private final Supplier<ScriptConnection> connection;
    private final Supplier<byte[]> offset;
    private final long timeoutNanos;
    private final ConcurrentLinkedQueue<Item> queue = new ConcurrentLinkedQueue<>();
    /** Whether a call of the script is on its way: then items queue, and its reply sends them. */
    private final AtomicBoolean sending = new AtomicBoolean();
    /** The call on its way, and when it left (System.nanoTime); written before it is sent. */
    @Nullable
    private volatile CompletableFuture<List<Object>> onItsWay;
    private volatile long sentAt;

    /**
     * @param script        a script whose ARGV is the offset then each item's arguments, and whose reply is a list of
     *                      one reply per item
     * @param connection    the connection open now, or null: never connects (it may be called on the event loop)
     * @param offset        the test offset of the server's time as the script's first argument
     * @param timeoutMillis how long a call may go without an answer before a caller's timeout fails it
     */
    ScriptBatcher(Scripts.Script script, Supplier<ScriptConnection> connection, Supplier<byte[]> offset,
                  long timeoutMillis) {
        this.script = script;
        this.connection = connection;
        this.offset = offset;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** Queues {@code item} and sends it, alone or with others; its {@link Item#reply} completes with its reply. */
    CompletableFuture<Object> submit(Item item) {
        queue.add(item);
        sendIfIdle();
        return item.reply;
    }

    /** Sends what is queued unless a call is on its way (its reply will). */
    private void sendIfIdle() {
        while (!queue.isEmpty() && sending.compareAndSet(false, true)) {
            List<Item> batch = drain();
            if (!batch.isEmpty()) {
                send(batch, true);
                return;
            }
            sending.set(false); // every queued caller gave up; look again, another may have queued meanwhile
        }
    }

    /** How many items wait for the call on its way (for tests). */
    int queued() {
        return queue.size();
    }

    /** Whether a call is on its way (for tests). */
    boolean sending() {
        return sending.get();
    }

    private List<Item> drain() {
        List<Item> batch = new ArrayList<>();
        Item next;
        while (batch.size() < MAX_ITEMS && (next = queue.poll()) != null) {
            if (!next.reply.isDone()) {
                batch.add(next);
            }
        }
        return batch;
    }

    /** Sends {@code batch}; once it is answered (or failed), sends what queued meanwhile. */
    private void send(List<Item> batch, boolean loadIfForgotten) {
        ScriptConnection c = connection.get();
        if (c == null) {
            IllegalStateException closed = new IllegalStateException("no open connection");
            batch.forEach(item -> item.reply.completeExceptionally(closed));
            sending.set(false);
            sendIfIdle();
            return;
        }
        int keysPerItem = batch.get(0).keys.length;
        int argsPerItem = batch.get(0).args.length;
        byte[][] keys = new byte[batch.size() * keysPerItem][];
        byte[][] args = new byte[1 + batch.size() * argsPerItem][];
        args[0] = offset.get();
        for (int i = 0; i < batch.size(); i++) {
            Item item = batch.get(i);
            System.arraycopy(item.keys, 0, keys, i * keysPerItem, keysPerItem);
            System.arraycopy(item.args, 0, args, 1 + i * argsPerItem, argsPerItem);
        }
        CompletableFuture<List<Object>> call;
        sentAt = System.nanoTime();
        try {
            call = c.<List<Object>>evalsha(script.sha(), script.output(), keys, args);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        onItsWay = call;
        call.whenComplete((replies, failure) -> {
            if (failure instanceof RedisNoScriptException && loadIfForgotten) {
                c.scriptLoad(keys[0], script.source()).whenComplete((sha, loadFailure) -> {
                    if (loadFailure != null) {
                        finish(batch, null, loadFailure);
                    } else {
                        send(batch, false); // the script did not run: this is the batch's only run
                    }
                });
                return;
            }
            finish(batch, replies, failure);
        });
    }

    /**
     * Fails the call on its way if it left more than the timeout ago (its items with it), so the items queued behind
     * it leave; called by a caller whose own wait timed out. A reply that comes later is ignored.
     */
    void expireIfStuck() {
        CompletableFuture<List<Object>> call = onItsWay;
        if (call != null && sending.get() && System.nanoTime() - sentAt > timeoutNanos) {
            call.completeExceptionally(new TimeoutException("no answer within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms to a call of " + script.name()));
        }
    }

    private void finish(List<Item> batch, @Nullable List<Object> replies, @Nullable Throwable failure) {
        Throwable problem = failure;
        if (problem == null && (replies == null || replies.size() != batch.size())) {
            problem = new IllegalStateException("the script answered " + (replies == null ? "nothing" : replies.size()
                    + " replies") + " to " + batch.size() + " items");
        }
        for (int i = 0; i < batch.size(); i++) {
            if (problem != null) {
                batch.get(i).reply.completeExceptionally(problem);
            } else {
                batch.get(i).reply.complete(replies.get(i));
            }
        }
        sending.set(false);
        sendIfIdle();
    }
}
