package dev.idem.benchmarks.startup;

import dev.idem.StartupCheck;

import java.util.List;

/** The README's quick-start program: the woven check, a call, and its retry answered by a replay. */
public final class QuickStart {
    private QuickStart() {
    }

    public static void main(String[] args) {
        StartupCheck.requireWoven(OrderService.class);

        OrderService orders = new OrderService();
        OrderService.Cart cart = new OrderService.Cart(List.of("book"), 1200);
        OrderService.Order first = orders.create("request-1", cart);
        OrderService.Order retried = orders.create("request-1", cart); // a retry: replayed, not run
        System.out.println(first + ", then " + retried + "; created " + orders.created() + " time(s)");
    }
}
