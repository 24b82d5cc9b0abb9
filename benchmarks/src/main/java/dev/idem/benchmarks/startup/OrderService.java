package dev.idem.benchmarks.startup;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;

import java.io.Serializable;
import java.util.List;

/** The README's quick-start service, as a user pastes it (woven at compile time with the benchmarks). */
public class OrderService {
    /** What the method returns is stored and replayed. */
    public record Order(String id, long totalCents) implements Serializable {
    }

    /** The payload. */
    public record Cart(List<String> items, long totalCents) {
    }

    private int created;

    @Idempotent(scope = "shop:create-order", ttl = "24h")
    public Order create(@IdempotencyKey String requestId, Cart cart) {
        created++;
        return new Order("order-" + requestId, cart.totalCents());
    }

    public int created() {
        return created;
    }
}
