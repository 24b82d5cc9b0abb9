package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.IdemSettings;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.jdbc.JdbcStoreProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;
import java.util.Map;

/**
 * {@code idem.store=jdbc} from the application's beans: the jdbc store over the application's {@link DataSource}
 * (no pool of its own), configured by the same {@code idem.jdbc.*} settings as without Spring, whose transactional
 * mode ({@code storeTransaction}) joins Spring's transactions or begins one with the application's
 * {@link PlatformTransactionManager}. With {@code idem.jdbc.url} the store keeps its records in that database
 * through a pool of its own, as without Spring. An {@link IdempotencyStore} bean of the application's wins.
 *
 * <p>Active only when the jdbc store and Spring's JDBC support are on the class path.
 */
@AutoConfiguration(before = IdemAutoConfiguration.class)
@ConditionalOnClass(name = {"dev.idem.store.jdbc.JdbcIdempotencyStore",
        "org.springframework.jdbc.datasource.DataSourceUtils"})
@ConditionalOnProperty(name = IdemSettings.STORE, havingValue = IdemJdbcStoreAutoConfiguration.STORE_NAME)
public class IdemJdbcStoreAutoConfiguration {
    static final String STORE_NAME = "jdbc";

    /** Made by Spring Boot's auto-configuration. */
    public IdemJdbcStoreAutoConfiguration() {
    }

    /**
     * The jdbc store, closed with the context (the application's {@code DataSource} is not: it is the
     * application's).
     *
     * @param environment  where the {@code idem.jdbc.*} settings are read
     * @param dataSources  the application's {@code DataSource}, used unless {@code idem.jdbc.url} is set
     * @param transactions the application's transaction manager; without one, a {@code DataSourceTransactionManager}
     *                     over the {@code DataSource}
     * @return the store
     * @throws IdempotencyConfigurationException without a {@code DataSource} bean and {@code idem.jdbc.url}, or for
     *                                           a bad {@code idem.jdbc.*} setting, naming the property
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    public IdempotencyStore idemJdbcStore(ConfigurableEnvironment environment, ObjectProvider<DataSource> dataSources,
                                          ObjectProvider<PlatformTransactionManager> transactions) {
        IdemSettings settings = EnvironmentSettings.read(environment);
        Map<String, String> properties = EnvironmentSettings.storeProperties(settings, STORE_NAME);
        if (properties.containsKey("url")) {
            return new JdbcStoreProvider().create(properties, settings.clock());
        }
        DataSource dataSource = dataSources.getIfUnique();
        if (dataSource == null) {
            throw new IdempotencyConfigurationException("idem.store=jdbc needs a database for the records: the"
                    + " application has no (single, or primary) DataSource bean and idem.jdbc.url is not set; define"
                    + " a DataSource (spring.datasource.url) or set idem.jdbc.url");
        }
        PlatformTransactionManager manager = transactions.getIfUnique(
                () -> new DataSourceTransactionManager(dataSource));
        JdbcIdempotencyStore.Builder builder = JdbcStoreProvider.builder(dataSource, properties);
        return builder.applicationTransactions(new SpringManagedTransactions(dataSource, manager)).build();
    }
}
