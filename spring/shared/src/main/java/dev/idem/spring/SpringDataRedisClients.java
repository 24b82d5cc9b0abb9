package dev.idem.spring;

import io.lettuce.core.AbstractRedisClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Lettuce client behind the application's Spring Data Redis connection factory. Apart from
 * {@link IdemRedisStoreAutoConfiguration} so that Spring Data Redis is loaded only when it is on the class path.
 */
final class SpringDataRedisClients {
    private SpringDataRedisClients() {
    }

    /** The native client of the application's (single, or primary) {@code LettuceConnectionFactory}, if any. */
    static AbstractRedisClient nativeClient(ListableBeanFactory beans) {
        LettuceConnectionFactory factory = beans.getBeanProvider(LettuceConnectionFactory.class).getIfUnique();
        return factory == null ? null : factory.getNativeClient();
    }
}
