package dev.idem.spring;

import dev.idem.core.IdemEngine;
import dev.idem.codec.ResultCodecProvider;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.KeyCanonicalizer;
import dev.idem.core.Reconciler;
import dev.idem.core.RetryAfter;
import dev.idem.core.RetryClassifier;
import dev.idem.store.IdempotencyStore;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/**
 * {@code @Idempotent} on Spring beans: the engine, made from the application's {@code idem.*} properties unless the
 * application defines its own {@link IdemEngine} bean; an advisor that hands each advised call to it; and the
 * start-up check of every bean's {@code @Idempotent} methods.
 */
@AutoConfiguration
public class IdemAutoConfiguration {
    /**
     * The advisor's order unless {@code idem.spring.aspect-order} says otherwise: before Spring's transaction
     * advice (whose default is {@link Ordered#LOWEST_PRECEDENCE}), so the claim is made outside a
     * {@code @Transactional} method's transaction and a rolled-back transaction is not recorded as done.
     */
    public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    /**
     * Checks that the application runs the Spring Boot generation this starter is built for.
     *
     * @throws IncompatibleSpringBootException naming both versions and the starter to use instead
     */
    public IdemAutoConfiguration() {
        SpringBootGeneration.ofThisStarter().requireRunning(SpringBootVersion.getVersion());
    }

    /**
     * The engine, from the application's {@code idem.*} properties and beans; closed with the context (before the
     * beans it was given, which stay the application's). The application's {@link IdempotencyStore} bean (the
     * primary one of several), or the store the starter made from the application's beans ({@code idem.store=jdbc}
     * or {@code redis}), serves as the store {@code idem.store} names. Every {@link IdempotencyListener},
     * {@link Reconciler}, {@link RetryClassifier}, {@link RetryAfter}, {@link ResultCodecProvider} and
     * {@link KeyCanonicalizer} bean is handed to the engine, in the beans' order ({@code @Order}, {@code Ordered}).
     *
     * @param environment the application's environment
     * @param stores      the application's store, if it has one
     * @param extensions  the application's beans, where the engine's extensions are looked up
     * @return the engine
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public IdemEngine idemEngine(ConfigurableEnvironment environment, ObjectProvider<IdempotencyStore> stores,
                                 ListableBeanFactory extensions) {
        IdemSettings properties = EnvironmentSettings.read(environment);
        IdemSettings.Builder settings = IdemSettings.from(properties);
        stores.ifUnique(store -> settings.store(properties.defaultStore(), store));
        extensions.getBeanProvider(IdempotencyListener.class).orderedStream().forEach(settings::listener);
        extensions.getBeanProvider(Reconciler.class).orderedStream().forEach(settings::reconciler);
        extensions.getBeanProvider(RetryClassifier.class).orderedStream().forEach(settings::retryClassifier);
        extensions.getBeanProvider(RetryAfter.class).orderedStream().forEach(settings::retryAfter);
        extensions.getBeanProvider(ResultCodecProvider.class).orderedStream().forEach(settings::codec);
        extensions.getBeanProvider(KeyCanonicalizer.class).orderedStream()
                .forEach(canonicalizer -> settings.canonicalizer((KeyCanonicalizer<?>) canonicalizer));
        return IdemEngine.create(settings.build());
    }

    /**
     * The advisor. Static, and given the engine only when first called, so making it (which Spring's auto-proxy
     * creator does before most beans) does not make the engine early.
     *
     * @param engine      the engine, looked up at the first advised call
     * @param environment where {@code idem.spring.aspect-order} is read
     * @return the advisor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static IdempotentMethodAdvisor idempotentMethodAdvisor(ObjectProvider<IdemEngine> engine,
                                                           Environment environment) {
        return new IdempotentMethodAdvisor(SingletonSupplier.of(engine::getObject),
                EnvironmentSettings.aspectOrder(environment, DEFAULT_ASPECT_ORDER));
    }

    /**
     * The start-up check.
     *
     * @param beans         the context's beans
     * @param engine        the engine every method is planned in
     * @param processEngine lends that engine to the process if a bean's methods are woven or instrumented
     * @return the check, run once every singleton is made
     */
    @Bean
    @ConditionalOnMissingBean
    static IdempotentBeansCheck idempotentBeansCheck(ConfigurableListableBeanFactory beans,
                                                     ObjectProvider<IdemEngine> engine,
                                                     ObjectProvider<ProcessEngineBinding> processEngine) {
        return new IdempotentBeansCheck(beans, SingletonSupplier.of(engine::getObject),
                SingletonSupplier.of(processEngine::getObject));
    }

    /**
     * What lends the context's engine to the process while the context runs, for methods woven at compile time or
     * instrumented by the agent, which run on the process's engine.
     *
     * @param engine the context's engine
     * @return the binding, which gives the process's engine back when the context closes
     */
    @Bean
    ProcessEngineBinding idemProcessEngineBinding(IdemEngine engine) {
        return new ProcessEngineBinding(engine);
    }
}
