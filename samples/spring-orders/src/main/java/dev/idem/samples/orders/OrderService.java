package dev.idem.samples.orders;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.sql.PreparedStatement;
import java.util.List;

/**
 * Creates orders, once per request key. Idem's advice runs outside the transaction (the starter's default order):
 * the order's row commits before the result is recorded, so an order whose transaction rolls back is not recorded as
 * done and a retry runs the method again.
 */
@Service
public class OrderService {
    private final JdbcTemplate jdbc;

    public OrderService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Idempotent(scope = "orders:create", ttl = "24h")
    @Transactional
    public Order create(@IdempotencyKey String requestKey, NewOrder order) {
        if (order.quantity() <= 0) {
            throw new IllegalArgumentException("quantity must be positive, was " + order.quantity());
        }
        GeneratedKeyHolder id = new GeneratedKeyHolder();
        jdbc.update(connection -> {
            PreparedStatement insert = connection.prepareStatement(
                    "insert into orders(item, quantity, request_key) values (?, ?, ?)", new String[] {"id"});
            insert.setString(1, order.item());
            insert.setInt(2, order.quantity());
            insert.setString(3, requestKey);
            return insert;
        }, id);
        return new Order(id.getKey().longValue(), order.item(), order.quantity(), requestKey);
    }

    /** Every order, oldest first. */
    public List<Order> all() {
        return jdbc.query("select id, item, quantity, request_key from orders order by id",
                (row, n) -> new Order(row.getLong(1), row.getString(2), row.getInt(3), row.getString(4)));
    }
}
