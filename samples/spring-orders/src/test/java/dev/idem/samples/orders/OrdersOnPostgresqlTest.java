package dev.idem.samples.orders;

import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The sample as its README runs it on PostgreSQL ({@code --idem.store=jdbc} and a datasource URL): the orders and
 * Idem's records in the same database, the records through the application's own {@code DataSource}. The real
 * PostgreSQL of {@code IDEM_TEST_POSTGRES_URL}, else an embedded one.
 */
class OrdersOnPostgresqlTest extends OrdersApiTest {
    private static final String RECORDS = "orders_idem_records";

    @Override
    List<String> arguments() {
        return List.of("--spring.datasource.url=" + TestPostgres.url(), "--idem.store=jdbc",
                "--idem.jdbc.table=" + RECORDS, "--idem.jdbc.createTable=true");
    }

    @Test
    void theRecordOfAnOrderIsInTheApplicationsDatabase() throws Exception {
        JdbcTemplate jdbc = app().getBean(JdbcTemplate.class);
        int before = records(jdbc);

        assertEquals(201, post(key("stored-1"), "{\"item\":\"rug\",\"quantity\":1}").statusCode());

        assertEquals(before + 1, records(jdbc), "one record more, in the orders' database");
    }

    private static int records(JdbcTemplate jdbc) {
        return jdbc.queryForObject("select count(*) from " + RECORDS + " where idem_key like '%:orders:create:%'",
                Integer.class);
    }
}
