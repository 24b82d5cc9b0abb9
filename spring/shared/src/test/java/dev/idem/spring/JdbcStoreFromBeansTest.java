package dev.idem.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.idem.spring.Applications.DATA_SOURCE_AUTO_CONFIGURATION_BOOT3;
import static dev.idem.spring.Applications.DATA_SOURCE_AUTO_CONFIGURATION_BOOT4;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code idem.store=jdbc} from the application's beans, on the real PostgreSQL: the store over the application's
 * {@code DataSource}, the {@code idem.jdbc.*} settings as without Spring, a store bean of the application's winning,
 * and what stops the context.
 */
class JdbcStoreFromBeansTest {
    private static final String TABLE = "spring_jdbc_records";

    static class Orders {
        private final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "spring-jdbc:orders")
        public String place(String id) {
            runs.incrementAndGet();
            return "placed " + id;
        }

        int runs() {
            return runs.get();
        }
    }

    /** An application with a pool of its own on PostgreSQL, counted. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class PooledApp {
        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        CountingDataSource dataSource() {
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl(TestPostgres.url());
            pool.setMaximumPoolSize(4);
            JdbcTemplate jdbc = new JdbcTemplate(pool);
            jdbc.execute("drop table if exists " + TABLE);
            jdbc.execute("drop sequence if exists " + TABLE + "_tokens");
            return new CountingDataSource(pool);
        }
    }

    /** An application without any DataSource. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration(excludeName = {DATA_SOURCE_AUTO_CONFIGURATION_BOOT3, DATA_SOURCE_AUTO_CONFIGURATION_BOOT4})
    static class NoDataSourceApp {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    /** An application without a DataSource that brings its own store. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration(excludeName = {DATA_SOURCE_AUTO_CONFIGURATION_BOOT3, DATA_SOURCE_AUTO_CONFIGURATION_BOOT4})
    static class OwnStoreApp extends NoDataSourceApp {
        @Bean
        InMemoryIdempotencyStore ownStore() {
            return new InMemoryIdempotencyStore();
        }
    }

    @Test
    void theStoreKeepsItsRecordsThroughTheApplicationsDataSource() {
        try (ConfigurableApplicationContext context = Applications.start(PooledApp.class, "idem.store=jdbc",
                "idem.jdbc.table=" + TABLE, "idem.jdbc.createTable=true")) {
            CountingDataSource pool = context.getBean(CountingDataSource.class);
            assertInstanceOf(JdbcIdempotencyStore.class, context.getBean(IdempotencyStore.class));
            Orders orders = context.getBean(Orders.class);
            int before = pool.borrowed();

            assertEquals("placed 1", orders.place("1"));
            assertEquals("placed 1", orders.place("1"));
            assertEquals(1, orders.runs(), "the duplicate was replayed");
            assertTrue(pool.borrowed() > before, "the store borrowed its connections from the application's pool");
            assertEquals(1, rows(pool), "the record is in the table idem.jdbc.table names");
        }
    }

    @Test
    void withIdemJdbcUrlTheStoreUsesThatDatabaseAsWithoutSpring() {
        try (ConfigurableApplicationContext context = Applications.start(NoDataSourceApp.class, "idem.store=jdbc",
                "idem.jdbc.url=" + TestPostgres.url(), "idem.jdbc.table=" + TABLE + "_url",
                "idem.jdbc.createTable=true")) {
            assertInstanceOf(JdbcIdempotencyStore.class, context.getBean(IdempotencyStore.class));
            Orders orders = context.getBean(Orders.class);
            orders.place("u-" + System.nanoTime());
            assertEquals(1, orders.runs());
        }
    }

    @Test
    void aStoreBeanOfTheApplicationsWins() {
        try (ConfigurableApplicationContext context = Applications.start(OwnStoreApp.class, "idem.store=jdbc")) {
            InMemoryIdempotencyStore own = context.getBean(InMemoryIdempotencyStore.class);
            assertSame(own, context.getBean(IdempotencyStore.class), "the starter made no store of its own");
            context.getBean(Orders.class).place("1");
            assertEquals(1, own.estimatedSize(), "the call's record is in the application's store");
        }
    }

    @Test
    void withoutADataSourceOrAUrlTheContextStopsNamingTheProperty() {
        IdempotencyConfigurationException e = Applications.refused(IdempotencyConfigurationException.class,
                NoDataSourceApp.class, "idem.store=jdbc");
        assertTrue(e.getMessage().contains("idem.jdbc.url") && e.getMessage().contains("DataSource"),
                e.getMessage());
    }

    @Test
    void aPoolSettingBesideTheApplicationsDataSourceStopsTheContextNamingIt() {
        IdempotencyConfigurationException e = Applications.refused(IdempotencyConfigurationException.class,
                PooledApp.class, "idem.store=jdbc", "idem.jdbc.user=records");
        assertTrue(e.getMessage().contains("idem.jdbc.user"), e.getMessage());
    }

    @Test
    void aBadJdbcSettingStopsTheContextNamingIt() {
        IdempotencyConfigurationException e = Applications.refused(IdempotencyConfigurationException.class,
                PooledApp.class, "idem.store=jdbc", "idem.jdbc.table=no-such table");
        assertTrue(e.getMessage().contains("idem.jdbc.table") && e.getMessage().contains("no-such table"),
                e.getMessage());
    }

    private static int rows(DataSource dataSource) {
        return new JdbcTemplate(dataSource).queryForObject("select count(*) from " + TABLE, Integer.class);
    }
}
