package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.IdemSettings;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The engine's settings from the application's {@code idem.*} properties ({@code application.yml}, {@code
 * .properties}, the command line, the environment: every source Spring's {@code Environment} has), under the same
 * names and grammar as the system properties Idem reads without Spring. The starter's own keys, under
 * {@value #STARTER_PREFIX}, are not the engine's and are left to the starter.
 */
final class EnvironmentSettings {
    static final String STARTER_PREFIX = "idem.spring.";
    /** Where the advisor stands among the other advice of a bean: an {@code Ordered} value, lower is outer. */
    static final String ASPECT_ORDER = "idem.spring.aspect-order";
    /** The starter's own keys: every other {@value #STARTER_PREFIX} key stops the context. */
    static final Set<String> STARTER_KEYS = Set.of(ASPECT_ORDER);
    private static final String PREFIX = "idem.";

    private EnvironmentSettings() {
    }

    /**
     * Reads the settings.
     *
     * @throws dev.idem.IdempotencyConfigurationException for an unknown {@code idem.} key or a bad value, naming both
     */
    static IdemSettings read(ConfigurableEnvironment environment) {
        Map<String, String> engineProperties = new TreeMap<>();
        for (String name : names(environment)) {
            if (!name.startsWith(STARTER_PREFIX)) {
                engineProperties.put(name, environment.getProperty(name)); // the winning source's value, resolved
            } else if (!STARTER_KEYS.contains(name)) {
                throw new IdempotencyConfigurationException("unknown property " + name + " = \""
                        + environment.getProperty(name) + "\"; the starter's own keys are " + STARTER_KEYS);
            }
        }
        return IdemSettings.fromProperties(engineProperties);
    }

    /**
     * A store's own settings, {@code idem.<store>.*}, by their names after that prefix, as the engine hands them to
     * the store's provider.
     */
    static Map<String, String> storeProperties(IdemSettings settings, String store) {
        String prefix = PREFIX + store + ".";
        Map<String, String> own = new TreeMap<>();
        settings.properties().forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                own.put(key.substring(prefix.length()), value);
            }
        });
        return own;
    }

    /**
     * The advisor's order: {@value #ASPECT_ORDER}, else {@code fallback}.
     *
     * @throws IdempotencyConfigurationException when the value is not an integer, naming the key and the value
     */
    static int aspectOrder(Environment environment, int fallback) {
        String value = environment.getProperty(ASPECT_ORDER);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IdempotencyConfigurationException(ASPECT_ORDER + " = \"" + value + "\" is not an integer"
                    + " (an Ordered value: lower runs outside higher)");
        }
    }

    /** Every {@code idem.*} name some source of the environment lists. */
    private static Set<String> names(ConfigurableEnvironment environment) {
        Set<String> names = new TreeSet<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    if (name.startsWith(PREFIX)) {
                        names.add(name);
                    }
                }
            }
        }
        return names;
    }
}
