package dev.idem.tests.release;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PublicationCheck} on small reactors written for each case: a complete one passes, and each thing a release
 * must not lack is reported, naming the module.
 */
class PublicationCheckTest {
    private static final String METADATA = """
              <url>https://example.org/idem</url>
              <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>
              <developers><developer><name>The Idem authors</name></developer></developers>
              <scm %s>
                <connection>scm:git:https://example.org/idem.git</connection>
                <developerConnection>scm:git:git@example.org:idem.git</developerConnection>
                <url>https://example.org/idem</url>
              </scm>
            """;
    private static final String NO_APPEND = """
            child.scm.connection.inherit.append.path="false" child.scm.developerConnection.inherit.append.path="false" \
            child.scm.url.inherit.append.path="false\"""";

    @TempDir
    Path root;

    @BeforeEach
    void aCompleteReactor() throws IOException {
        write("pom.xml", """
                <project child.project.url.inherit.append.path="false">
                  <groupId>dev.idem</groupId><artifactId>idem-parent</artifactId><version>1.0</version>
                  <packaging>pom</packaging>
                  <name>Idem</name><description>parent</description>
                """ + METADATA.formatted(NO_APPEND) + """
                  <properties><maven.deploy.skip>false</maven.deploy.skip></properties>
                  <modules><module>core</module><module>bom</module><module>tests/it</module></modules>
                  <profiles><profile><id>more</id><modules><module>agent</module></modules></profile></profiles>
                </project>
                """);
        write("core/pom.xml", module("idem-core", "Idem core", ""));
        write("agent/pom.xml", module("idem-agent", "Idem agent", ""));
        write("tests/it/pom.xml", """
                <project>
                  <parent><groupId>dev.idem</groupId><artifactId>idem-parent</artifactId><version>1.0</version>
                    <relativePath>../../pom.xml</relativePath></parent>
                  <artifactId>idem-tests-it</artifactId>
                  <properties><maven.deploy.skip>true</maven.deploy.skip></properties>
                </project>
                """);
        write("bom/pom.xml", bom("idem-core", "idem-agent"));
        write("LICENSE", "                                 Apache License\n    Version 2.0, January 2004\n");
        write("NOTICE", "Idem\n");
    }

    @Test
    void aCompleteReactorPasses() {
        assertEquals(List.of(), check());
    }

    @Test
    void aPublishedModuleMissingFromTheBomIsNamed() throws IOException {
        write("bom/pom.xml", bom("idem-core"));

        assertEquals(List.of("idem-bom (bom): does not list the published module idem-agent (agent); add it to bom/pom.xml"),
                check());
    }

    @Test
    void theBomListingAModuleThatIsNotPublishedIsReported() throws IOException {
        write("bom/pom.xml", bom("idem-core", "idem-agent", "idem-tests-it"));

        assertEquals(List.of("idem-bom (bom): lists idem-tests-it, which is not a published jar module of the reactor"),
                check());
    }

    @Test
    void aBomThatInheritsTheParentOrLagsItsVersionIsReported() throws IOException {
        write("bom/pom.xml", bom("idem-core", "idem-agent")
                .replace("<version>1.0</version>", "<version>0.9</version>")
                .replace("<modelVersion>", "<parent><groupId>x</groupId><artifactId>y</artifactId><version>1</version>"
                        + "<relativePath/></parent><modelVersion>"));

        List<String> problems = check();

        assertEquals(2, problems.size(), problems::toString);
        assertTrue(problems.get(0).contains("must have no <parent>"), problems::toString);
        assertTrue(problems.get(1).contains("version 0.9 differs from idem-parent's 1.0"), problems::toString);
    }

    @Test
    void aModuleWithoutItsOwnNameOrWithNothingToInheritIsReported() throws IOException {
        write("core/pom.xml", module("idem-core", "Idem core", "").replace("<name>Idem core</name>", ""));
        write("pom.xml", Files.readString(root.resolve("pom.xml"))
                .replaceAll("(?s)<scm .*?</scm>", "")
                .replaceAll("(?s)<developers>.*?</developers>", ""));

        List<String> problems = check();

        assertTrue(problems.contains("idem-core (core): no <name> (not inherited: each module declares its own)"),
                problems::toString);
        assertTrue(problems.contains("idem-core (core): no <scm>, own or inherited"), problems::toString);
        assertTrue(problems.contains("idem-agent (agent): no <developers><developer>, own or inherited"),
                problems::toString);
        assertTrue(problems.contains("idem-parent (.): no <scm>, own or inherited"), problems::toString);
        assertTrue(problems.stream().noneMatch(p -> p.startsWith("idem-tests-it")), "unpublished modules are not checked");
    }

    @Test
    void anInheritedUrlThatMavenWouldSuffixWithTheArtifactIdIsReported() throws IOException {
        write("pom.xml", Files.readString(root.resolve("pom.xml"))
                .replace(" child.project.url.inherit.append.path=\"false\"", "")
                .replace(" child.scm.url.inherit.append.path=\"false\"", ""));

        List<String> problems = check();

        assertEquals(4, problems.size(), problems::toString);
        assertTrue(problems.stream().allMatch(p -> p.contains("so Maven appends the artifactId")), problems::toString);
    }

    @Test
    void aMissingLicenceFileIsReported() throws IOException {
        Files.delete(root.resolve("LICENSE"));

        assertEquals(List.of("no LICENSE file at the repository's root"), check());
    }

    private List<String> check() {
        return PublicationCheck.problems(Reactor.load(root));
    }

    private static String module(String artifactId, String name, String extra) {
        return """
                <project>
                  <parent><groupId>dev.idem</groupId><artifactId>idem-parent</artifactId><version>1.0</version></parent>
                  <artifactId>%s</artifactId>
                  <name>%s</name>
                  %s
                </project>
                """.formatted(artifactId, name, extra);
    }

    private static String bom(String... artifactIds) {
        StringBuilder dependencies = new StringBuilder();
        for (String artifactId : artifactIds) {
            dependencies.append("<dependency><groupId>dev.idem</groupId><artifactId>").append(artifactId)
                    .append("</artifactId><version>${project.version}</version></dependency>\n");
        }
        return """
                <project>
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>dev.idem</groupId><artifactId>idem-bom</artifactId><version>1.0</version>
                  <packaging>pom</packaging>
                  <name>Idem BOM</name><description>versions</description>
                """ + METADATA.formatted("") + """
                  <dependencyManagement><dependencies>
                """ + dependencies + """
                  </dependencies></dependencyManagement>
                </project>
                """;
    }

    private void write(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }
}
