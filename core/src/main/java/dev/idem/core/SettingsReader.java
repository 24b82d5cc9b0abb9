package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.OnStoreError;
import dev.idem.store.DurationGrammar;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;

import static dev.idem.core.IdemSettings.CODEC;
import static dev.idem.core.IdemSettings.NAMESPACE;
import static dev.idem.core.IdemSettings.ON_STORE_ERROR;
import static dev.idem.core.IdemSettings.STORE;
import static dev.idem.core.IdemSettings.WAIT_RECHECK;

/**
 * Reads {@link IdemSettings} from where a deployment writes them: {@code idem.*} keys of system properties, of
 * {@code idem.properties} on the class path and of a launcher's overrides, and the extensions listed in
 * {@code META-INF/services}. It turns each key's text into the builder's value, and refuses an unknown key or a bad
 * value with an error that names both; what a value must be is the builder's to say.
 */
final class SettingsReader {
    private static final String PREFIX = "idem.";

    private SettingsReader() {
    }

    /** See {@link IdemSettings#fromEnvironment(Map)}. */
    static IdemSettings fromEnvironment(Map<String, String> overrides) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = IdemSettings.class.getClassLoader();
        }
        // Later sources win: the file, then system properties, then the overrides.
        Map<String, String> merged = new LinkedHashMap<>(propertiesFile(loader));
        Properties system = System.getProperties();
        for (String name : system.stringPropertyNames()) {
            if (name.startsWith(PREFIX)) {
                merged.put(name, system.getProperty(name));
            }
        }
        merged.putAll(overrides);
        IdemSettings.Builder builder = read(merged, IdemSettings.custom());
        for (IdempotencyListener listener : ServiceLoader.load(IdempotencyListener.class, loader)) {
            builder.listener(listener);
        }
        for (KeyCanonicalizer<?> canonicalizer : ServiceLoader.load(KeyCanonicalizer.class, loader)) {
            builder.canonicalizer(canonicalizer);
        }
        for (RetryClassifier classifier : ServiceLoader.load(RetryClassifier.class, loader)) {
            builder.retryClassifier(classifier);
        }
        for (RetryAfter retryAfter : ServiceLoader.load(RetryAfter.class, loader)) {
            builder.retryAfter(retryAfter);
        }
        for (Reconciler reconciler : ServiceLoader.load(Reconciler.class, loader)) {
            builder.reconciler(reconciler);
        }
        return builder.build();
    }

    /** The keys and values of {@code idem.properties} on {@code loader}'s class path; none if it has none. */
    private static Map<String, String> propertiesFile(ClassLoader loader) {
        Map<String, String> values = new LinkedHashMap<>();
        try (InputStream in = loader.getResourceAsStream("idem.properties")) {
            if (in != null) {
                Properties file = new Properties();
                file.load(in);
                for (String key : file.stringPropertyNames()) {
                    values.put(key, file.getProperty(key));
                }
            }
        } catch (IOException e) {
            throw new IdempotencyConfigurationException("idem.properties could not be read: " + e.getMessage(), e);
        }
        return values;
    }

    /**
     * Sets on {@code builder} what {@code properties} say.
     *
     * @return {@code builder}
     * @throws IdempotencyConfigurationException for an unknown {@code idem.} key or a bad value, naming both
     */
    static IdemSettings.Builder read(Map<String, String> properties, IdemSettings.Builder builder) {
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String key = e.getKey();
            String value = e.getValue().trim();
            if (!IdemSettings.KEYS.contains(key) && !isStoreKey(key)) {
                throw unknownKey(key, value);
            }
            switch (key) {
                case NAMESPACE:
                    builder.namespace(value);
                    break;
                case STORE:
                    builder.defaultStore(value);
                    break;
                case ON_STORE_ERROR:
                    builder.onStoreError(onStoreError(value));
                    break;
                case CODEC:
                    builder.defaultCodec(value);
                    break;
                case WAIT_RECHECK:
                    builder.waitRecheck(duration(WAIT_RECHECK, value));
                    break;
                default:
                    builder.property(key, value); // idem.<store>.*: the store's provider reads it
            }
        }
        return builder;
    }

    /** Whether {@code key} is {@code idem.<store>.<name>}, a store's own, which its provider checks. */
    private static boolean isStoreKey(String key) {
        return key.startsWith(PREFIX) && key.indexOf('.', PREFIX.length()) >= 0;
    }

    private static IdempotencyConfigurationException unknownKey(String key, String value) {
        return new IdempotencyConfigurationException("unknown configuration key " + key + " = \"" + value
                + "\"; known keys are " + String.join(", ", IdemSettings.KEYS)
                + " and idem.<store>.* for a store's own settings");
    }

    private static Duration duration(String key, String value) {
        try {
            return DurationGrammar.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IdempotencyConfigurationException(key + " = \"" + value + "\": " + e.getMessage(), e);
        }
    }

    private static OnStoreError onStoreError(String value) {
        switch (value.toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "fail-closed":
                return OnStoreError.FAIL_CLOSED;
            case "fail-open":
                return OnStoreError.FAIL_OPEN;
            default:
                throw new IdempotencyConfigurationException(ON_STORE_ERROR + " = \"" + value
                        + "\" is not one of fail-closed, fail-open");
        }
    }
}
