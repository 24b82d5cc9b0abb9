package dev.idem.store.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ScriptBatcher} over a connection the test answers itself: which call carries which item, which reply goes to
 * which caller, and that a call that fails fails all its callers at the moment it fails (no caller is left to its own
 * timeout). Every step is synchronous: the test completes each call's future and looks at once (the timeout only
 * bounds a future that a broken batcher would never complete).
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ScriptBatcherTest {
    /** The calls sent, in order, each with the future the test completes. */
    private final List<Call> calls = new ArrayList<>();
    private final ScriptBatcher batcher = new ScriptBatcher(Scripts.CLAIM, () -> new Answered(), () -> bytes("0"),
            60_000);

    private record Call(byte[][] keys, byte[][] args, CompletableFuture<List<Object>> reply) {
    }

    @Test
    void itemsQueuedBehindACallLeaveTogetherInOrderAndEachCallerGetsItsOwnReply() throws Exception {
        CompletableFuture<Object> first = batcher.submit(item("first"));
        assertEquals(1, calls.size(), "an item leaves at once while no call is on its way");
        List<CompletableFuture<Object>> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            queued.add(batcher.submit(item("queued-" + i)));
        }
        assertEquals(1, calls.size(), "the others queue behind it");
        assertEquals(5, batcher.queued());

        calls.get(0).reply.complete(List.of("reply of first"));
        assertEquals("reply of first", first.get());
        assertEquals(2, calls.size(), "its reply sends the queued items, together");
        Call together = calls.get(1);
        List<Object> replies = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            assertEquals("queued-" + i, text(together.keys[i]), "the call's keys in the order the items queued");
            assertEquals("arg of queued-" + i, text(together.args[1 + i]), "and their arguments, after the offset");
            replies.add("reply of queued-" + i);
        }
        together.reply.complete(replies);
        for (int i = 0; i < 5; i++) {
            assertEquals("reply of queued-" + i, queued.get(i).get(), "caller " + i + " gets its own reply");
        }
        assertFalse(batcher.sending(), "nothing is on its way any more");
    }

    @Test
    void aCallThatFailsFailsAllItsCallersAtOnce() {
        batcher.submit(item("first"));
        List<CompletableFuture<Object>> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            queued.add(batcher.submit(item("queued-" + i)));
        }
        calls.get(0).reply.complete(List.of("reply of first"));
        RedisCommandExecutionException refused = new RedisCommandExecutionException("NOPERM refused");
        calls.get(1).reply.completeExceptionally(refused);
        for (CompletableFuture<Object> reply : queued) {
            assertTrue(reply.isCompletedExceptionally(), "every caller fails the moment its call fails");
            ExecutionException e = assertThrows(ExecutionException.class, reply::get);
            assertSame(refused, e.getCause());
        }
        assertFalse(batcher.sending(), "and the queue is free for the next items");
        CompletableFuture<Object> next = batcher.submit(item("next"));
        assertEquals(3, calls.size(), "the next item leaves at once");
        calls.get(2).reply.complete(List.of("reply of next"));
        assertEquals("reply of next", next.join());
    }

    @Test
    void aReplyOfTheWrongLengthFailsAllTheCallersOfTheCall() {
        batcher.submit(item("first"));
        CompletableFuture<Object> a = batcher.submit(item("a"));
        CompletableFuture<Object> b = batcher.submit(item("b"));
        calls.get(0).reply.complete(List.of("reply of first"));
        calls.get(1).reply.complete(List.of("one reply for two items"));
        for (CompletableFuture<Object> reply : List.of(a, b)) {
            ExecutionException e = assertThrows(ExecutionException.class, reply::get);
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("1 replies to 2 items"), e.getCause().getMessage());
        }
    }

    /** An item of one key and one argument, both named after {@code name}. */
    private static ScriptBatcher.Item item(String name) {
        return new ScriptBatcher.Item(new byte[][] {bytes(name)}, new byte[][] {bytes("arg of " + name)});
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A connection whose every call waits for the test to answer it. */
    private final class Answered implements ScriptConnection {
        @Override
        @SuppressWarnings("unchecked")
        public <T> CompletableFuture<T> evalsha(String sha, ScriptOutputType output, byte[][] keys, byte[][] args) {
            CompletableFuture<List<Object>> reply = new CompletableFuture<>();
            calls.add(new Call(keys, args, reply));
            return (CompletableFuture<T>) reply;
        }

        @Override
        public CompletableFuture<String> scriptLoad(byte[] key, String source) {
            return CompletableFuture.completedFuture(Scripts.CLAIM.sha());
        }

        @Override
        public CompletableFuture<List<byte[]>> time(byte[] key) {
            throw new UnsupportedOperationException("the batcher never reads the time");
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void closeAsync() {
        }

        @Override
        public void close() {
        }
    }
}
