package dev.idem.tests.release;

import javax.lang.model.SourceVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * What the module path needs of published jars: each names its module in its manifest
 * ({@code Automatic-Module-Name}), a legal module name of its own, and no package lives in two of them (the module
 * path refuses a package split between modules).
 *
 * <p>Jars that bundle other Idem jars by design (the agent: one self-contained {@code -javaagent} jar, never put
 * beside the jars it bundles), or stand in for another (the Spring Boot 3 starter: the Boot 4 starter's code built
 * against Boot 3.5; an application has one of the two, and each refuses to start on the other's Spring Boot), are
 * named and skipped by the package check; their module name is still checked.
 */
final class ModuleNames {
    static final String ATTRIBUTE = "Automatic-Module-Name";

    private ModuleNames() {
    }

    /**
     * The problems of {@code jars} (by artifactId), or none.
     *
     * @param bundling the artifactIds whose jars bundle or stand in for others' packages, left out of the
     *                 split-package check
     */
    static List<String> problems(Map<String, Path> jars, Set<String> bundling) {
        List<String> problems = new ArrayList<>();
        Map<String, String> byName = new TreeMap<>();
        Map<String, Set<String>> ownersByPackage = new TreeMap<>();
        for (Map.Entry<String, Path> jar : jars.entrySet()) {
            String artifactId = jar.getKey();
            if (!Files.isRegularFile(jar.getValue())) {
                problems.add(artifactId + ": no jar at " + jar.getValue() + " (build it first: mvn package)");
                continue;
            }
            try (JarFile file = new JarFile(jar.getValue().toFile())) {
                Manifest manifest = file.getManifest();
                String name = manifest == null ? null : manifest.getMainAttributes().getValue(ATTRIBUTE);
                if (name == null || name.isBlank()) {
                    problems.add(artifactId + ": no " + ATTRIBUTE + " in " + jar.getValue().getFileName());
                } else if (!SourceVersion.isName(name)) {
                    problems.add(artifactId + ": " + ATTRIBUTE + " '" + name + "' is not a legal module name");
                } else {
                    String other = byName.putIfAbsent(name, artifactId);
                    if (other != null) {
                        problems.add(artifactId + " and " + other + " share the module name " + name);
                    }
                }
                if (!bundling.contains(artifactId)) {
                    for (String pkg : packages(file)) {
                        ownersByPackage.computeIfAbsent(pkg, p -> new TreeSet<>()).add(artifactId);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + jar.getValue(), e);
            }
        }
        ownersByPackage.forEach((pkg, owners) -> {
            if (owners.size() > 1) {
                problems.add("package " + pkg + " is split between " + String.join(" and ", owners));
            }
        });
        return problems;
    }

    /** The packages holding classes, multi-release versions counted as their base package. */
    private static Set<String> packages(JarFile file) {
        Set<String> packages = new TreeSet<>();
        for (JarEntry entry : file.stream().toList()) {
            String path = entry.getName().replaceFirst("^META-INF/versions/\\d+/", "");
            int slash = path.lastIndexOf('/');
            if (path.endsWith(".class") && slash > 0 && !path.startsWith("META-INF/")
                    && !path.endsWith("module-info.class")) {
                packages.add(path.substring(0, slash).replace('/', '.'));
            }
        }
        return packages;
    }
}
