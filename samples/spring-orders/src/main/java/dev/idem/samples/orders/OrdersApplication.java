package dev.idem.samples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An order API whose clients retry their POSTs: {@code POST /orders} with an {@code Idempotency-Key} header creates
 * one order per key, however often the request is sent, and answers every retry with that order.
 *
 * <p>Run it with {@code mvn -q install -DskipTests && mvn -q -pl samples/spring-orders spring-boot:run}; the orders
 * go to an embedded H2 database and Idem's records stay in memory. With
 * {@code -Dspring-boot.run.arguments="--idem.store=jdbc --idem.jdbc.createTable=true
 * --spring.datasource.url=jdbc:postgresql://..."} both go to PostgreSQL, so every instance of the API shares them.
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
