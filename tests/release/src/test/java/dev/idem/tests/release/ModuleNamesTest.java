package dev.idem.tests.release;

import dev.idem.tests.release.Reactor.Module;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every published jar the build made carries an {@code Automatic-Module-Name} of its own, and no two split a package
 * ({@link ModuleNames}); the check itself fails each kind of mistake on jars made here.
 */
class ModuleNamesTest {
    /** The agent's jar bundles the engine it attaches; the Boot 3 starter stands in for the Boot 4 one. */
    private static final Set<String> BUNDLING = Set.of("idem-agent", "idem-spring-boot3-starter");

    @Test
    void everyPublishedJarNamesItsOwnModuleAndNoPackageIsSplit() {
        Reactor reactor = Reactor.load(PublishedModulesTest.repositoryRoot());
        Map<String, Path> jars = new LinkedHashMap<>();
        for (Module module : reactor.published()) {
            if (!"pom".equals(module.pom().packaging())) {
                jars.put(module.artifactId(), module.pom().dir().resolve("target")
                        .resolve(module.artifactId() + "-" + module.pom().version() + ".jar"));
            }
        }
        // Guards against a vacuous pass: the jars the reactor publishes are all looked at.
        assertTrue(jars.keySet().containsAll(List.of("idem-annotations", "idem-store-spi", "idem-store-tck",
                "idem-core", "idem-codec-jackson", "idem-store-jdbc", "idem-store-redis", "idem-aspect",
                "idem-agent", "idem-maven-plugin", "idem-spring-boot-starter", "idem-spring-boot3-starter")),
                () -> "jars: " + jars.keySet());

        List<String> problems = ModuleNames.problems(jars, BUNDLING);

        assertEquals(List.of(), problems, () -> String.join("\n", problems));
    }

    @Test
    void aJarWithoutANameOrWithAnIllegalOneIsReported(@TempDir Path dir) throws IOException {
        Map<String, Path> jars = new LinkedHashMap<>();
        jars.put("a", jar(dir, "a", null, "dev/idem/a/A.class"));
        jars.put("b", jar(dir, "b", "${idem.module.name}", "dev/idem/b/B.class"));
        jars.put("c", dir.resolve("c.jar"));

        assertEquals(List.of("a: no Automatic-Module-Name in a.jar",
                "b: Automatic-Module-Name '${idem.module.name}' is not a legal module name",
                "c: no jar at " + dir.resolve("c.jar") + " (build it first: mvn package)"),
                ModuleNames.problems(jars, Set.of()));
    }

    @Test
    void twoJarsSharingANameOrAPackageAreReportedUnlessOneBundlesTheOtherByDesign(@TempDir Path dir)
            throws IOException {
        Map<String, Path> jars = new LinkedHashMap<>();
        jars.put("core", jar(dir, "core", "dev.idem.core", "dev/idem/core/Engine.class"));
        jars.put("twin", jar(dir, "twin", "dev.idem.core", "dev/idem/twin/Twin.class"));
        jars.put("split", jar(dir, "split", "dev.idem.split", "META-INF/versions/11/dev/idem/core/Extra.class"));

        assertEquals(List.of("twin and core share the module name dev.idem.core",
                "package dev.idem.core is split between core and split"), ModuleNames.problems(jars, Set.of()));
        assertEquals(List.of("twin and core share the module name dev.idem.core"),
                ModuleNames.problems(jars, Set.of("split")));
    }

    private static Path jar(Path dir, String name, String moduleName, String... classes) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (moduleName != null) {
            manifest.getMainAttributes().putValue(ModuleNames.ATTRIBUTE, moduleName);
        }
        Path jar = dir.resolve(name + ".jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream zip = new JarOutputStream(out, manifest)) {
            for (String entry : classes) {
                zip.putNextEntry(new JarEntry(entry));
                zip.write(new byte[] {(byte) 0xCA, (byte) 0xFE});
                zip.closeEntry();
            }
        }
        return jar;
    }
}
