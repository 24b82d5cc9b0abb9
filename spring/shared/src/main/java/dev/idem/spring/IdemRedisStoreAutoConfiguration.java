package dev.idem.spring;

import dev.idem.core.IdemSettings;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.store.redis.RedisStoreProvider;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.ClassUtils;

import java.util.Map;

/**
 * {@code idem.store=redis} from the application's beans: the redis store over the application's Lettuce client (a
 * {@link RedisClient} or {@link RedisClusterClient} bean, else the native client of Spring Data Redis's
 * {@code LettuceConnectionFactory}), with its own connection on that client and the other {@code idem.redis.*}
 * settings as without Spring. With {@code idem.redis.uri}, or without such a client, the store connects as without
 * Spring ({@code idem.redis.uri} then required). An {@link IdempotencyStore} bean of the application's wins.
 *
 * <p>Active only when the redis store is on the class path; Spring Data Redis is optional.
 */
@AutoConfiguration(before = IdemAutoConfiguration.class, afterName = {
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration"})
@ConditionalOnClass(name = "dev.idem.store.redis.RedisIdempotencyStore")
@ConditionalOnProperty(name = IdemSettings.STORE, havingValue = IdemRedisStoreAutoConfiguration.STORE_NAME)
public class IdemRedisStoreAutoConfiguration {
    static final String STORE_NAME = "redis";
    private static final String URI = "uri";
    private static final String SPRING_DATA_REDIS_LETTUCE =
            "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

    /** Made by Spring Boot's auto-configuration. */
    public IdemRedisStoreAutoConfiguration() {
    }

    /**
     * The redis store, closed with the context (the application's client is not: it is the application's).
     *
     * @param environment where the {@code idem.redis.*} settings are read
     * @param beans       where the application's Lettuce client is looked up
     * @param clients     the application's {@code RedisClient}, if it has one
     * @return the store
     * @throws dev.idem.IdempotencyConfigurationException without a client and {@code idem.redis.uri}, or for a bad
     *                                                   {@code idem.redis.*} setting, naming the property
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    public IdempotencyStore idemRedisStore(ConfigurableEnvironment environment, ConfigurableListableBeanFactory beans,
                                           ObjectProvider<AbstractRedisClient> clients) {
        IdemSettings settings = EnvironmentSettings.read(environment);
        Map<String, String> properties = EnvironmentSettings.storeProperties(settings, STORE_NAME);
        AbstractRedisClient client = properties.containsKey(URI) ? null : applicationClient(beans, clients);
        if (client == null) {
            return new RedisStoreProvider().create(properties, settings.clock());
        }
        RedisIdempotencyStore.Builder builder = client instanceof RedisClusterClient cluster
                ? RedisStoreProvider.builder(cluster, properties)
                : RedisStoreProvider.builder((RedisClient) client, properties);
        return builder.build();
    }

    /** A Lettuce client bean of the application's, else Spring Data Redis's; null when it has neither. */
    private static AbstractRedisClient applicationClient(ConfigurableListableBeanFactory beans,
                                                         ObjectProvider<AbstractRedisClient> clients) {
        AbstractRedisClient client = clients.getIfUnique();
        if (client == null && ClassUtils.isPresent(SPRING_DATA_REDIS_LETTUCE, beans.getBeanClassLoader())) {
            client = SpringDataRedisClients.nativeClient(beans);
        }
        return client;
    }
}
