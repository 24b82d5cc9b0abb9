package dev.idem.spring;

import dev.idem.core.IdemEngine;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Where an {@code idem.*} value comes from when several sources name the key, as docs/spring-boot.md says: the first
 * source in Spring Boot's order, so the command line before system properties before the application's defaults.
 */
class PropertySourcesTest {
    private static final String KEY = "idem.namespace";

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @Test
    void theCommandLineWinsOverSystemPropertiesWhichWinOverTheApplicationsDefaults() {
        String before = System.getProperty(KEY);
        try {
            System.setProperty(KEY, "from-system");
            assertEquals("from-command-line", namespace("--" + KEY + "=from-command-line"));
            assertEquals("from-system", namespace());
            System.clearProperty(KEY);
            assertEquals("from-defaults", namespace());
        } finally {
            if (before == null) {
                System.clearProperty(KEY);
            } else {
                System.setProperty(KEY, before);
            }
        }
    }

    /** The engine's namespace in an application whose default properties name {@code from-defaults}. */
    private static String namespace(String... args) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                .properties(KEY + "=from-defaults").run(args)) {
            return context.getBean(IdemEngine.class).settings().namespace();
        }
    }
}
