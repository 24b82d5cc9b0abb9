package dev.idem.samples.orders;

/**
 * The body of {@code POST /orders}. It is the call's payload, not its key: a retry with the same key and another
 * body is refused as a conflict (HTTP 422 here) instead of being answered with the first order.
 */
public record NewOrder(String item, int quantity) {
}
