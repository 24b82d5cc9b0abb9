package dev.idem.spring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Spring Boot generation this starter was built for, which its jar names in {@value #RESOURCE} (the two
 * starters share their code and differ in that file and their dependencies), and the check that the application
 * runs it: a starter on the other generation stops the context naming both versions and the starter to use.
 *
 * @param starter          this starter's artifactId
 * @param springBoot       the Spring Boot line it is built for, {@code 4.0}
 * @param otherStarter     the starter for the other line
 * @param otherSpringBoot  the line that one is built for
 */
record SpringBootGeneration(String starter, String springBoot, String otherStarter, String otherSpringBoot) {
    static final String RESOURCE = "META-INF/idem-spring-boot-starter.properties";

    /** The generation this jar was built for. */
    static SpringBootGeneration ofThisStarter() {
        Properties p = new Properties();
        try (InputStream in = SpringBootGeneration.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the starter's jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SpringBootGeneration(p.getProperty("starter"), p.getProperty("spring-boot"),
                p.getProperty("other-starter"), p.getProperty("other-spring-boot"));
    }

    /**
     * @param running the Spring Boot version the application runs, such as {@code 4.0.7}
     * @throws IncompatibleSpringBootException when its major version is not this starter's
     */
    void requireRunning(String running) {
        if (running != null && !major(running).equals(major(springBoot))) {
            throw new IncompatibleSpringBootException(this, running);
        }
    }

    private static String major(String version) {
        int dot = version.indexOf('.');
        return dot < 0 ? version : version.substring(0, dot);
    }
}
