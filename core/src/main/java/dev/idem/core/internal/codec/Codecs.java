package dev.idem.core.internal.codec;

import dev.idem.codec.ResultCodecProvider;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The result codecs an engine knows: the core's {@code java} codec and every {@link ResultCodecProvider} found with
 * {@link ServiceLoader}, by name (the higher priority wins a name). The default is the configured one, else the
 * highest-priority codec, so adding idem-codec-jackson to the class path makes {@code json} the default.
 */
public final class Codecs {
    private static final Pattern NAME = Pattern.compile("[a-z0-9-]{1,16}");

    private final Map<String, ResultCodecProvider> byName;
    private final String defaultName;

    public Codecs(String configuredDefault, ClassLoader loader) {
        List<ResultCodecProvider> all = new ArrayList<>();
        all.add(new JavaCodecProvider());
        ServiceLoader.load(ResultCodecProvider.class, loader).forEach(all::add);
        all.sort(Comparator.comparingInt(ResultCodecProvider::priority).reversed());
        Map<String, ResultCodecProvider> named = new LinkedHashMap<>();
        for (ResultCodecProvider provider : all) {
            String name = provider.name();
            int version = provider.formatVersion();
            if (!NAME.matcher(name).matches() || version < 1 || version > 255) {
                throw new IllegalStateException("result codec " + provider.getClass().getName() + " has name \""
                        + name + "\" and format version " + version + "; a name is 1-16 of [a-z0-9-] and a version"
                        + " 1-255");
            }
            named.putIfAbsent(name, provider); // sorted by priority: the first of a name wins
        }
        this.byName = Map.copyOf(named);
        this.defaultName = configuredDefault.isEmpty() ? all.get(0).name() : configuredDefault;
    }

    /** The known codecs' names, sorted, for messages. */
    public String names() {
        return byName.keySet().stream().sorted().collect(Collectors.joining(", "));
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
