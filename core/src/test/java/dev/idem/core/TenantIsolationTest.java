package dev.idem.core;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyKeyException;
import dev.idem.Idempotent;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile input, tenants: with {@code scope = "{tenant}:orders"} the same order id under two tenants is two
 * operations. For random tenant names (including ones that try to break out of their segment with {@code :},
 * {@code {}}, slashes, spaces or case), a tenant only ever receives its own stored result: either both calls run and
 * each replays its own, or a tenant name that is not a plain identifier is refused before the method runs.
 */
class TenantIsolationTest {
    record Order(String tenant, String id, int run) implements Serializable {
    }

    static class Orders {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "{tenant}:orders")
        Order place(String tenant, @IdempotencyKey String orderId) {
            return new Order(tenant, orderId, runs.incrementAndGet());
        }
    }

    @Property(tries = 100)
    void aTenantNeverReceivesAnotherTenantsResult(@ForAll("tenants") String a, @ForAll("tenants") String b)
            throws Throwable {
        Assume.that(!a.equals(b));
        try (EngineFixture fx = new EngineFixture()) {
            Orders orders = new Orders();
            Order first = place(fx, orders, a);
            Order second = place(fx, orders, b);
            if (first != null) {
                assertEquals(a, first.tenant());
                assertEquals(first, place(fx, orders, a), "tenant " + a + " replays its own result");
            }
            if (second != null) {
                assertEquals(b, second.tenant());
                assertEquals(second, place(fx, orders, b), "tenant " + b + " replays its own result");
            }
            if (first != null && second != null) {
                assertNotEquals(first.run(), second.run(), "each tenant's call ran");
                assertEquals(2, fx.count(IdempotencyEventType.EXECUTED));
                assertNotEquals(fx.events.get(0).key(), fx.events.get(1).key());
            }
        }
    }

    /** The tenant's order, or null when the tenant name was refused (and the method did not run for it). */
    private static Order place(EngineFixture fx, Orders orders, String tenant) throws Throwable {
        int before = orders.runs.get();
        try {
            return (Order) fx.call(orders, "place", tenant, "order-1");
        } catch (IdempotencyKeyException e) {
            assertTrue(e.getMessage().contains("{tenant}"), e.getMessage());
            assertEquals(before, orders.runs.get(), "a refused tenant's call did not run");
            return null;
        }
    }

    @Provide
    Arbitrary<String> tenants() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars("aA1.-_@").ofMinLength(1).ofMaxLength(4),
                Arbitraries.strings().withChars("aA:{}/ *").ofMaxLength(4),
                Arbitraries.of("acme", "ACME", "acme:orders", "acme:orders:x", "a:b", "", " acme", "acme ", "*"));
    }
}
