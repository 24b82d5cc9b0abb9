package dev.idem.samples.orders;

import java.util.List;
import java.util.UUID;

/** The sample's default set-up: orders in an embedded H2 database, Idem's records in memory. */
class OrdersOnH2Test extends OrdersApiTest {
    private final String database = "orders-" + UUID.randomUUID();

    @Override
    List<String> arguments() {
        return List.of("--spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
    }
}
