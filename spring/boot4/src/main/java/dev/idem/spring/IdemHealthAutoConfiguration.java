package dev.idem.spring;

import dev.idem.store.IdempotencyStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import java.util.Map;

/**
 * A health indicator for each of the application's store beans, under {@code idem} in the health report: down when
 * its store does not answer ({@link StoreProbe}). Off unless {@code management.health.idem.enabled=true}: an
 * unreachable store need not make the whole application unhealthy (its calls fail open or closed as each method
 * says), so the application opts in, as it does for Resilience4j's indicators. The in-memory store made by the
 * engine is no bean and has nothing to report.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnProperty(name = IdemHealthAutoConfiguration.ENABLED, havingValue = "true")
@ConditionalOnBean(IdempotencyStore.class)
public class IdemHealthAutoConfiguration {
    /** The property that turns the indicators on. */
    static final String ENABLED = "management.health.idem.enabled";

    /** Made by Spring Boot's auto-configuration. */
    public IdemHealthAutoConfiguration() {
    }

    /**
     * The indicators, one per store bean, named by the bean.
     *
     * @param stores the application's store beans, by name
     * @return their composite, reported as {@code idem}
     */
    @Bean
    @ConditionalOnMissingBean(name = "idemHealthContributor")
    public CompositeHealthContributor idemHealthContributor(Map<String, IdempotencyStore> stores) {
        return CompositeHealthContributor.fromMap(stores, IdemHealthAutoConfiguration::indicator);
    }

    private static HealthIndicator indicator(IdempotencyStore store) {
        return () -> {
            StoreProbe.Result probe = StoreProbe.probe(store);
            return (probe.reachable() ? Health.up() : Health.down()).withDetails(probe.details()).build();
        };
    }
}
