package dev.idem.tests.release;

import dev.idem.tests.release.Reactor.Module;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The repository's own reactor passes {@link PublicationCheck}. */
class PublishedModulesTest {
    private static final Reactor REACTOR = Reactor.load(repositoryRoot());

    @Test
    void everyPublishedModuleHasTheMetadataACentralRepositoryRequiresAndIsInTheBom() {
        List<String> problems = PublicationCheck.problems(REACTOR);

        assertEquals(List.of(), problems, () -> problems.size() + " problem(s) before Idem can be published:\n  "
                + String.join("\n  ", problems));
    }

    @Test
    void theCheckSeesTheWholeReactor() {
        // Guards against a vacuous pass: if discovery found nothing, every check above would hold.
        List<String> published = REACTOR.published().stream().map(Module::artifactId).toList();
        List<String> unpublished = REACTOR.modules.stream().filter(m -> !m.published()).map(Module::artifactId).toList();

        assertTrue(published.containsAll(List.of("idem-parent", "idem-bom", "idem-annotations", "idem-store-spi",
                "idem-store-tck", "idem-core", "idem-aspect", "idem-agent")), () -> "published: " + published);
        assertTrue(unpublished.containsAll(List.of("idem-tests-ctw", "idem-tests-ltw", "idem-tests-agent",
                "idem-tests-release", "idem-samples", "idem-benchmarks")), () -> "not published: " + unpublished);
    }

    /** Set by the build (surefire's idem.root); else found upwards from the working directory. */
    static Path repositoryRoot() {
        String configured = System.getProperty("idem.root");
        if (configured != null) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            if (Files.isRegularFile(pom) && "idem-parent".equals(Pom.read(pom).artifactId())) {
                return dir;
            }
        }
        throw new IllegalStateException("no idem-parent pom above " + Path.of("").toAbsolutePath());
    }
}
