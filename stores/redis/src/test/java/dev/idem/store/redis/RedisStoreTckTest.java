package dev.idem.store.redis;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreTck;
import dev.idem.testsupport.LoopbackProxy;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.tck.StoreTime;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The TCK on standalone Redis: every store of a test (and its peer, a second store with its own client and connection,
 * as another process would open it) shares one server and one time offset, which the TCK moves through
 * {@link StoreTime}. The TCK's keys carry a random prefix per test. The store under test reaches the server through a
 * proxy, so {@link #makeUnreachable} cuts it off (its connection dropped, the server silent from then on) instead of
 * closing it.
 */
class RedisStoreTckTest extends IdempotencyStoreTck {
    @RegisterExtension
    static final TestRedis redis = new TestRedis();
    /** Added to the server's now by every store of the running test; starts at zero. */
    private final AtomicLong offset = new AtomicLong();
    private RedisIdempotencyStore first;
    private LoopbackProxy proxy;

    private RedisIdempotencyStore open(RedisURI uri) {
        return configure(RedisIdempotencyStore.builder(uri)).serverTimeOffset(offset::get).build();
    }

    /** What a subclass sets on every store of a test, the store under test and its peer alike. */
    RedisIdempotencyStore.Builder configure(RedisIdempotencyStore.Builder builder) {
        return builder;
    }

    @Override
    protected IdempotencyStore createStore(MutableClock clock) throws Exception {
        RedisURI viaProxy = RedisURI.create(redis.uri());
        proxy = new LoopbackProxy(viaProxy.getHost(), viaProxy.getPort());
        viaProxy.setHost("127.0.0.1");
        viaProxy.setPort(proxy.port());
        first = open(viaProxy);
        return first;
    }

    @AfterEach
    void closeProxy() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Override
    protected void makeUnreachable(IdempotencyStore target) {
        assertSame(first, target, "the TCK cuts off the store under test");
        proxy.cut();
    }

    @Override
    protected StoreTime createStoreTime(MutableClock clock) {
        // The server's clock runs on its own; two shared cores make a step between two readings slow.
        return StoreTime.serverClockWithOffset(() -> first.serverNow(), offset, Duration.ofSeconds(2));
    }

    @Override
    protected Optional<IdempotencyStore> createPeerStore(MutableClock clock) {
        return Optional.of(open(RedisURI.create(redis.uri())));
    }

    @Test
    void keysAndOwnersBeyondAsciiAreKeptExactly() {
        String key = key("bestellung-\u00fc-\u6ce8\u6587-\ud83d\ude00");
        String owner = "worker-\u00e9-\ud83d\udc1d";
        assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key, "h", owner, LEASE, Duration.ZERO)));
        assertEquals(key, store.get(key).orElseThrow().key());
        assertEquals(owner, store.get(key).orElseThrow().owner());
        assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key.replace("\u00fc", "u"), "h", owner, LEASE, Duration.ZERO)),
                "a key that differs only in an accent is another key");
    }
}
