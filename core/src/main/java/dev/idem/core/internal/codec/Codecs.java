package dev.idem.core.internal.codec;

import dev.idem.codec.ResultCodecProvider;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * The result codecs an engine knows: the core's {@code java} codec and every {@link ResultCodecProvider} found with
 * {@link ServiceLoader}, by name (the higher priority wins a name). The default is the configured one, else the
 * highest-priority codec, so adding idem-codec-jackson to the class path makes {@code json} the default.
 */
public final class Codecs {
    private final Map<String, ResultCodecProvider> byName;
    private final String defaultName;

    public Codecs(String configuredDefault, ClassLoader loader) {
        this(configuredDefault, loader, List.of());
    }

    /**
     * @param registered codecs given to the engine ({@code IdemSettings.Builder.codec}): each wins its name over a
     *                   codec found on the class path, whatever their priorities; of two registered, the later
     */
    public Codecs(String configuredDefault, ClassLoader loader, List<ResultCodecProvider> registered) {
        List<ResultCodecProvider> all = new ArrayList<>();
        all.add(new JavaCodecProvider());
        for (ResultCodecProvider provider : ServiceLoader.load(ResultCodecProvider.class, loader)) {
            all.add(provider);
        }
        all.addAll(registered);
        // The higher priority wins a name and the default; of equal priorities, the first found.
        Map<String, ResultCodecProvider> named = new LinkedHashMap<>();
        ResultCodecProvider highest = null;
        for (ResultCodecProvider provider : all) {
            String name = provider.name();
            int version = provider.formatVersion();
            if (!isName(name) || version < 1 || version > 255) {
                throw new IllegalStateException("result codec " + provider.getClass().getName() + " has name \""
                        + name + "\" and format version " + version + "; a name is 1-16 of [a-z0-9-] and a version"
                        + " 1-255");
            }
            ResultCodecProvider held = named.get(name);
            if (held == null || provider.priority() > held.priority() || registered.contains(provider)) {
                named.put(name, provider);
            }
            if (highest == null || provider.priority() > highest.priority()) {
                highest = provider;
            }
        }
        this.byName = Map.copyOf(named);
        this.defaultName = configuredDefault.isEmpty() ? highest.name() : configuredDefault;
    }

    /** Whether {@code name} is 1-16 of {@code [a-z0-9-]}. */
    private static boolean isName(String name) {
        if (name == null || name.isEmpty() || name.length() > 16) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** The known codecs' names, sorted, for messages. */
    public String names() {
        return String.join(", ", new TreeSet<>(byName.keySet()));
    }

    /** The name methods use when their annotation names none. */
    public String defaultName() {
        return defaultName;
    }

    /**
     * The provider called {@code name}, or the default's for an empty name.
     *
     * @throws IllegalArgumentException naming the known codecs when there is none of that name
     */
    public ResultCodecProvider resolve(String name) {
        String effective = name.isEmpty() ? defaultName : name;
        ResultCodecProvider provider = byName.get(effective);
        if (provider == null) {
            throw new IllegalArgumentException("no result codec \"" + effective + "\"; the known codecs are "
                    + names()
                    + (effective.equals("json") ? " (json needs dev.idem:idem-codec-jackson on the class path)" : ""));
        }
        return provider;
    }
}
