package dev.idem.spring;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts a real Spring Boot application (auto-configuration from the class path, no web server) for a test. */
final class Applications {
    /**
     * The names of Spring Boot's {@code DataSource} auto-configuration in Boot 3 and in Boot 4 (its package moved),
     * for {@code excludeName}: Boot ignores the one its generation lacks.
     */
    static final String DATA_SOURCE_AUTO_CONFIGURATION_BOOT3 =
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration";
    static final String DATA_SOURCE_AUTO_CONFIGURATION_BOOT4 =
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

    private Applications() {
    }

    /**
     * @param configuration the application's {@code @SpringBootApplication}-style configuration
     * @param properties    {@code key=value} properties, as {@code application.properties} would give them
     * @return the started context; close it
     */
    static ConfigurableApplicationContext start(Class<?> configuration, String... properties) {
        SpringApplication application = new SpringApplicationBuilder(configuration)
                .web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false).properties(properties)
                .build();
        return application.run();
    }

    /**
     * Starts an application that must not start, and returns the failure of {@code type} among the causes.
     *
     * @throws AssertionError when the application starts, or fails otherwise
     */
    static <T extends Throwable> T refused(Class<T> type, Class<?> configuration, String... properties) {
        Throwable thrown;
        try {
            start(configuration, properties).close();
            throw new AssertionError(configuration.getSimpleName() + " started, but should have been refused");
        } catch (RuntimeException e) {
            thrown = e;
        }
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("the context failed, but not with a " + type.getSimpleName(), thrown);
    }
}
