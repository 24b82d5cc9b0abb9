package dev.idem.store.tck;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.ForwardingIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyWatch;
import dev.idem.store.TransactionalClaims;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link ForwardingIdempotencyStoreTckTest} cannot see: that the base forwards every method of the interface,
 * the optional ones with a default included, so a decorator never falls back to a default its delegate overrides
 * (the TCK skips the tests of an optional capability a store does not offer instead of failing them).
 */
class ForwardingIdempotencyStoreTest {

    @Test
    void everyMethodOfTheInterfaceIsForwardedNotLeftToItsDefault() {
        List<String> notForwarded = Arrays.stream(IdempotencyStore.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> declaringClass(m) != ForwardingIdempotencyStore.class)
                .map(Method::getName).sorted().toList();

        assertEquals(List.of(), notForwarded, "ForwardingIdempotencyStore must override every IdempotencyStore method");
    }

    @Test
    @Timeout(30)
    void aWatchIsTheDelegatesSoAWriteThroughTheRealStoreSignalsIt() throws InterruptedException {
        ReferenceStore real = new ReferenceStore(new ReferenceStore.Backend(null), Clock.systemUTC());
        IdempotencyStore forwarding = new ForwardingIdempotencyStore(real) {
        };
        long token = ((ClaimOutcome.Acquired) real.claim(new ClaimRequest("k", "hash", "owner", Duration.ofSeconds(30),
                Duration.ZERO))).fencingToken();

        // The interface's default offers no watch (the TCK then skips its watch tests rather than failing them).
        try (KeyWatch watch = forwarding.watch("k").orElseThrow(() -> new AssertionError("no watch forwarded"))) {
            assertTrue(real.release("k", token));
            assertTrue(watch.await(10, TimeUnit.SECONDS), "the release through the real store signals the watch");
        }
    }

    @Test
    void theTransactionalCapabilityIsTheDelegatesNotTheInterfaceDefault() {
        ReferenceStore.Backend backend = new ReferenceStore.Backend(null);
        TransactionalClaims claims = new ReferenceStore(backend, Clock.systemUTC()).transactionalClaims();
        IdempotencyStore forwarding = new ForwardingIdempotencyStore(new ReferenceStore(backend, Clock.systemUTC()) {
            @Override
            public TransactionalClaims transactionalClaims() {
                return claims;
            }
        }) {
        };

        // The interface's default would refuse; forwarded, the capability is the delegate's own.
        assertSame(claims, forwarding.transactionalClaims());
    }

    @Test
    void aNullDelegateIsRefusedAtOnce() {
        NullPointerException refused = assertThrows(NullPointerException.class,
                () -> new ForwardingIdempotencyStore(null) {
                });
        assertEquals("delegate", refused.getMessage());
    }

    private static Class<?> declaringClass(Method interfaceMethod) {
        try {
            return ForwardingIdempotencyStore.class
                    .getMethod(interfaceMethod.getName(), interfaceMethod.getParameterTypes()).getDeclaringClass();
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }
}
