package dev.idem.tests.release;

import org.w3c.dom.Element;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The modules a build of the repository's root pom reaches, found the way Maven finds them: {@code <modules>} (and
 * profiles' modules), recursively. Each module knows the chain of parents it inherits from inside the repository, so
 * an element a module leaves out is looked up where Maven would find it. A module added to the reactor is checked
 * without anyone listing it here.
 */
final class Reactor {
    /** Where an inherited element was found: the pom that declares it, and the element. */
    record Declared(Pom in, Element element) {
    }

    /** One module of the reactor, with its parents inside the repository, nearest first. */
    record Module(Path root, Pom pom, List<Pom> ancestors) {
        String artifactId() {
            return pom.artifactId();
        }

        /** The module's directory relative to the repository's root ("." for the root). */
        String path() {
            String relative = root.relativize(pom.dir()).toString();
            return relative.isEmpty() ? "." : relative;
        }

        /** This pom and its ancestors, nearest first. */
        List<Pom> lineage() {
            List<Pom> lineage = new ArrayList<>();
            lineage.add(pom);
            lineage.addAll(ancestors);
            return lineage;
        }

        /** The nearest declaration of this element path in the module or its ancestors, or null. */
        Declared inherited(String... path) {
            for (Pom candidate : lineage()) {
                Element element = candidate.element(path);
                if (element != null) {
                    return new Declared(candidate, element);
                }
            }
            return null;
        }

        /** The property's value as Maven resolves it: the module's own, else the nearest ancestor's. */
        String property(String name) {
            for (Pom candidate : lineage()) {
                String value = candidate.property(name);
                if (value != null) {
                    return value;
                }
            }
            return null;
        }

        /** Deployed to a repository: Idem's test-only modules set maven.deploy.skip. */
        boolean published() {
            return !"true".equals(property("maven.deploy.skip"));
        }

        @Override
        public String toString() {
            return artifactId() + " (" + path() + ")";
        }
    }

    final Path root;
    final Pom rootPom;
    final List<Module> modules;

    private Reactor(Path root, Pom rootPom, List<Module> modules) {
        this.root = root;
        this.rootPom = rootPom;
        this.modules = List.copyOf(modules);
    }

    /** The reactor of {@code root/pom.xml}, the root pom itself first. */
    static Reactor load(Path root) {
        Path normalized = root.toAbsolutePath().normalize();
        Map<Path, Module> found = new LinkedHashMap<>();
        Pom rootPom = Pom.read(normalized.resolve("pom.xml"));
        collect(normalized, rootPom, found);
        return new Reactor(normalized, rootPom, new ArrayList<>(found.values()));
    }

    private static void collect(Path root, Pom pom, Map<Path, Module> found) {
        if (found.containsKey(pom.file)) {
            return;
        }
        found.put(pom.file, new Module(root, pom, ancestors(pom)));
        for (String module : pom.modules()) {
            Path location = pom.dir().resolve(module).normalize();
            Path file = Files.isDirectory(location) ? location.resolve("pom.xml") : location;
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException(pom.file + " lists module " + module + ", which has no pom at " + file);
            }
            collect(root, Pom.read(file), found);
        }
    }

    /** The parents found on disk, as Maven finds them: by relativePath, when the pom there is the one named. */
    private static List<Pom> ancestors(Pom pom) {
        List<Pom> ancestors = new ArrayList<>();
        Pom current = pom;
        while (current.parent().isPresent() && ancestors.size() < 20) {
            Pom.ParentRef ref = current.parent().get();
            if (ref.relativePath() == null) {
                break;
            }
            Path location = current.dir().resolve(ref.relativePath()).normalize();
            Path file = Files.isDirectory(location) ? location.resolve("pom.xml") : location;
            if (!Files.isRegularFile(file)) {
                break;
            }
            Pom parent = Pom.read(file);
            if (!Objects.equals(parent.artifactId(), ref.artifactId())
                    || !Objects.equals(parent.groupId(), ref.groupId())) {
                break;
            }
            ancestors.add(parent);
            current = parent;
        }
        return ancestors;
    }

    List<Module> published() {
        return modules.stream().filter(Module::published).toList();
    }
}
