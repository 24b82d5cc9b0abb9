package dev.idem.spring;

import dev.idem.store.IdempotencyStore;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.util.Map;

/** The {@code idempotency} actuator endpoint, when the actuator is on the class path and the endpoint is available. */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnAvailableEndpoint(endpoint = IdempotencyEndpoint.class)
public class IdemEndpointAutoConfiguration {

    /** Made by Spring Boot's auto-configuration. */
    public IdemEndpointAutoConfiguration() {
    }

    /**
     * The endpoint.
     *
     * @param stores the application's store beans, by name
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    public IdempotencyEndpoint idempotencyEndpoint(Map<String, IdempotencyStore> stores) {
        return new IdempotencyEndpoint(stores);
    }
}
