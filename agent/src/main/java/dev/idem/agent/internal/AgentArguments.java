package dev.idem.agent.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parsed {@code -javaagent:idem-agent.jar=key=value,...} string. Engine keys are handed on as {@code idem.*}
 * configuration; the agent's own are {@code include}, {@code exclude} and {@code verbose}.
 */
final class AgentArguments {
    private static final List<String> ENGINE_KEYS = List.of("namespace", "store", "onStoreError");

    private final Map<String, String> engineProperties = new LinkedHashMap<>();
    private List<String> include = List.of();
    private List<String> exclude = List.of();
    private boolean verbose;

    private AgentArguments() {
    }

    static AgentArguments parse(String raw) {
        AgentArguments args = new AgentArguments();
        if (raw == null || raw.isBlank()) {
            return args;
        }
        for (String pair : raw.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new AgentArgumentException("argument \"" + pair + "\" is not key=value");
            }
            String key = pair.substring(0, eq).trim();
            String value = pair.substring(eq + 1).trim();
            switch (key) {
                case "include":
                    args.include = packages(key, value);
                    break;
                case "exclude":
                    args.exclude = packages(key, value);
                    break;
                case "verbose":
                    if (!value.equals("true") && !value.equals("false")) {
                        throw new AgentArgumentException("verbose=" + value + ": write verbose=true or verbose=false");
                    }
                    args.verbose = Boolean.parseBoolean(value);
                    break;
                default:
                    if (!ENGINE_KEYS.contains(key) && key.indexOf('.') <= 0) {
                        throw new AgentArgumentException("unknown argument " + key + "=" + value + "; known arguments"
                                + " are namespace, store, onStoreError, <store>.<key>, include, exclude, verbose");
                    }
                    args.engineProperties.put("idem." + key, value);
            }
        }
        return args;
    }

    private static List<String> packages(String key, String value) {
        List<String> prefixes = Arrays.asList(value.split(":"));
        for (String p : prefixes) {
            if (!p.matches("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*")) {
                throw new AgentArgumentException(key + "=" + value + ": \"" + p + "\" is not a package name"
                        + " (separate several with ':')");
            }
        }
        return List.copyOf(prefixes);
    }

    Map<String, String> engineProperties() {
        return engineProperties;
    }

    boolean verbose() {
        return verbose;
    }

    /** Whether the arguments let the agent instrument {@code className}; null when they do, else the reason. */
    String exclusionOf(String className) {
        for (String p : exclude) {
            if (inPackage(className, p)) {
                return "exclude=" + String.join(":", exclude);
            }
        }
        if (include.isEmpty()) {
            return null;
        }
        for (String p : include) {
            if (inPackage(className, p)) {
                return null;
            }
        }
        return "include=" + String.join(":", include);
    }

    private static boolean inPackage(String className, String prefix) {
        return className.startsWith(prefix + ".");
    }
}
