package dev.idem.spring;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts a real Spring Boot application (auto-configuration from the class path, no web server) for a test. */
final class Applications {
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
}
