package dev.idem.tests.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The direction of dependencies between Idem's modules (ARCHITECTURE.md, "Modules and who may depend on whom"), on
 * the main classes each module compiled into its {@code target/classes}: reading them per module tells which module
 * a class belongs to, which a package name alone cannot (several modules share {@code dev.idem.store}).
 */
class ModuleBoundariesTest {
    /** Module directory (under the repository's root) and the role the rules give it. */
    private static final Map<String, String> MODULES = new LinkedHashMap<>();

    static {
        MODULES.put("annotations", "api");
        MODULES.put("store-spi", "spi");
        MODULES.put("core", "core");
        MODULES.put("aspect", "front-end");
        MODULES.put("agent", "front-end");
        MODULES.put("spring/boot4", "front-end"); // spring/boot3 compiles the same sources
        MODULES.put("stores/jdbc", "store");
        MODULES.put("stores/redis", "store");
        MODULES.put("codecs/jackson", "codec");
        MODULES.put("maven-plugin", "plugin");
    }

    private static JavaClasses all;
    private static final Map<String, Set<String>> CLASSES_BY_MODULE = new LinkedHashMap<>();

    @BeforeAll
    static void importModules() {
        Path root = Path.of(System.getProperty("idem.root", "../.."));
        List<Path> locations = new ArrayList<>();
        for (String module : MODULES.keySet()) {
            Path classes = root.resolve(module).resolve("target/classes");
            assertTrue(Files.isDirectory(classes), classes + " does not exist: build the modules first (the reactor"
                    + " builds them before this one)");
            CLASSES_BY_MODULE.put(module, new ClassFileImporter().importPath(classes).stream()
                    .map(JavaClass::getName).collect(Collectors.toSet()));
            locations.add(classes);
        }
        all = new ClassFileImporter().importPaths(locations);
    }

    /** A class in an {@code internal} package of an Idem module other than {@code module}. */
    private static DescribedPredicate<JavaClass> internalToAModuleOtherThan(String module) {
        Set<String> own = CLASSES_BY_MODULE.get(module);
        return DescribedPredicate.describe("are in an internal package of another Idem module than " + module,
                c -> c.getPackageName().startsWith("dev.idem.")
                        && (c.getPackageName().contains(".internal.") || c.getPackageName().endsWith(".internal"))
                        && !own.contains(c.getName()));
    }

    private static DescribedPredicate<JavaClass> inModule(String module) {
        Set<String> own = CLASSES_BY_MODULE.get(module);
        return DescribedPredicate.describe("are in module " + module, c -> own.contains(c.getName()));
    }

    private static List<String> modulesWithRole(String... roles) {
        Set<String> wanted = Set.of(roles);
        return MODULES.entrySet().stream().filter(e -> wanted.contains(e.getValue())).map(Map.Entry::getKey).toList();
    }

    @Test
    void frontEndsStoresCodecsAndThePluginUseNoOtherModulesInternals() {
        for (String module : modulesWithRole("front-end", "store", "codec", "plugin")) {
            ArchRule rule = noClasses().that(inModule(module))
                    .should().dependOnClassesThat(internalToAModuleOtherThan(module))
                    .because(module + " reaches other modules through their public API only (front-ends: the"
                            + " front-end contract, IdempotentMethod); what it needs that is internal becomes public"
                            + " API or moves into " + module);
            rule.check(all);
        }
    }

    @Test
    void coreImportsNoFrontEndAndNoPlugin() {
        Set<String> frontEnds = modulesWithRole("front-end", "plugin").stream()
                .flatMap(m -> CLASSES_BY_MODULE.get(m).stream()).collect(Collectors.toSet());
        noClasses().that(inModule("core"))
                .should().dependOnClassesThat(DescribedPredicate.describe("are in a front-end or the maven plugin",
                        c -> frontEnds.contains(c.getName())))
                .because("front-ends depend on core, never the other way round")
                .check(all);
    }

    @Test
    void storesImportNoCore() {
        Set<String> core = CLASSES_BY_MODULE.get("core");
        for (String store : modulesWithRole("store")) {
            noClasses().that(inModule(store))
                    .should().dependOnClassesThat(DescribedPredicate.describe("are in core",
                            c -> core.contains(c.getName())))
                    .because("a store depends on store-spi only, so it is a jar and a property, not code of core")
                    .check(all);
        }
    }

    @Test
    void theSubPackagesOfCoresInternalsFormNoCycle() {
        slices().matching("dev.idem.core.internal.(*)..").should().beFreeOfCycles()
                .because("each internal package of core builds on the ones below it (plan on key and codec, call"
                        + " on plan), so one can be read and changed without the others")
                .check(all);
    }
}
