package dev.idem.spring;

import dev.idem.Idempotent;
import dev.idem.core.IdemEngine;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application started in a JVM whose class path lacks the optional dependencies of the starter (the jdbc and
 * redis stores, Spring's JDBC and transactions, Spring Data Redis, Lettuce, every JDBC driver): it prints what it
 * could load, calls an {@code @Idempotent} bean method twice and prints how often it ran.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class WithoutOptionalDependenciesApp {

    /** Counts its runs. */
    public static class Greeter {
        private final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "spring-optional:greet")
        public String greet(String name) {
            runs.incrementAndGet();
            return "hello " + name;
        }

        public int runs() {
            return runs.get();
        }
    }

    @Bean
    Greeter greeter() {
        return new Greeter();
    }

    public static void main(String[] args) {
        for (String absent : args) {
            System.out.println("absent " + absent + "=" + !loadable(absent));
        }
        try (ConfigurableApplicationContext context = Applications.start(WithoutOptionalDependenciesApp.class)) {
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("ada");
            greeter.greet("ada");
            System.out.println("runs=" + greeter.runs());
            System.out.println("store=" + context.getBean(IdemEngine.class).settings().defaultStore());
        }
    }

    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, WithoutOptionalDependenciesApp.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
