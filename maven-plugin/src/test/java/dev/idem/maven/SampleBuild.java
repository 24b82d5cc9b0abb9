package dev.idem.maven;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A user's project, written under {@code target/samples} and built by a real {@code mvn} in a child process, the
 * way a user's build meets the plugin.
 *
 * <h2>Where the child build finds its artifacts</h2>
 * Nothing may be installed into the shared local repository, so the child gets one of its own
 * ({@code target/samples/local-repository}, empty at first) and two file repositories, which need no network:
 * <ul>
 *   <li>{@code target/samples/fresh}: this reactor's freshly built Idem jars and poms, copied by {@link #prepare};</li>
 *   <li>the outer build's own local repository, as a mirror of every other repository: every plugin and library
 *       the sample uses (the compiler, AspectJ, Surefire...) is one this reactor has already resolved, so it is
 *       there. This is the setup the maven-invoker-plugin recommends for testing plugins.</li>
 * </ul>
 * Global and user settings are replaced, so no mirror of the machine's can send the child elsewhere.
 */
final class SampleBuild {
    static final Path ROOT = Paths.get("target", "samples").toAbsolutePath();
    private static final Path FRESH = ROOT.resolve("fresh");
    private static final Path LOCAL = ROOT.resolve("local-repository");
    private static final Path SETTINGS = ROOT.resolve("settings.xml");
    static final String VERSION = property("idem.version");

    private SampleBuild() {
    }

    /** Lays out the repositories and settings once per test class. */
    static void prepare() throws IOException {
        deleteTree(ROOT);
        Files.createDirectories(LOCAL);
        publish("idem-parent", property("parent.pom"), null);
        for (String module : List.of("idem-annotations", "idem-store-spi", "idem-core", "idem-aspect", "idem-agent")) {
            Path jar = Paths.get(property(module + ".jar"));
            publish(module, pomBeside(jar).toString(), jar);
        }
        publish("idem-maven-plugin", property("plugin.pom"), Paths.get(property("plugin.jar")));
        String fresh = FRESH.toUri().toString();
        String outer = Paths.get(property("outer.repository")).toUri().toString();
        Files.writeString(SETTINGS, """
                <settings>
                  <localRepository>%s</localRepository>
                  <mirrors>
                    <mirror><id>outer</id><mirrorOf>*,!idem-fresh</mirrorOf><url>%s</url></mirror>
                  </mirrors>
                  <profiles>
                    <profile>
                      <id>idem-fresh</id>
                      <repositories>
                        <repository><id>idem-fresh</id><url>%s</url>
                          <snapshots><updatePolicy>always</updatePolicy></snapshots></repository>
                      </repositories>
                      <pluginRepositories>
                        <pluginRepository><id>idem-fresh</id><url>%s</url>
                          <snapshots><updatePolicy>always</updatePolicy></snapshots></pluginRepository>
                      </pluginRepositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>idem-fresh</activeProfile></activeProfiles>
                </settings>
                """.formatted(LOCAL, outer, fresh, fresh), StandardCharsets.UTF_8);
        Files.writeString(ROOT.resolve("global-settings.xml"), "<settings/>\n", StandardCharsets.UTF_8);
    }

    /**
     * Writes a project: a pom whose {@code <build><plugins>} holds {@code plugins} (placeholders such as
     * {@code @idem.version@} filled in), and {@code sources} by path under {@code src/main/java}.
     */
    static Path project(String name, String plugins, Map<String, String> sources) throws IOException {
        return project(name, plugins, sources, Map.of());
    }

    /** As {@link #project(String, String, Map)}, with {@code resources} by path under {@code src/main/resources}. */
    static Path project(String name, String plugins, Map<String, String> sources, Map<String, String> resources)
            throws IOException {
        Path dir = ROOT.resolve(name);
        deleteTree(dir);
        write(dir.resolve("src/main/java"), sources);
        write(dir.resolve("src/main/resources"), resources);
        Files.writeString(dir.resolve("pom.xml"), fill("""
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId>
                  <artifactId>%s</artifactId>
                  <version>1.0</version>
                  <properties>
                    <maven.compiler.release>17</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                  <dependencies>
                    <dependency><groupId>dev.idem</groupId><artifactId>idem-aspect</artifactId><version>@idem.version@</version></dependency>
                    <dependency><groupId>dev.idem</groupId><artifactId>idem-core</artifactId><version>@idem.version@</version></dependency>
                    <dependency><groupId>org.aspectj</groupId><artifactId>aspectjrt</artifactId><version>@aspectj.version@</version></dependency>
                  </dependencies>
                  <build>
                    <pluginManagement><plugins>
                      <plugin><artifactId>maven-compiler-plugin</artifactId><version>@compiler-plugin.version@</version>
                        <configuration><parameters>true</parameters></configuration></plugin>
                    </plugins></pluginManagement>
                    <plugins>
                %s
                    </plugins>
                  </build>
                </project>
                """.formatted(name, plugins)), StandardCharsets.UTF_8);
        return dir;
    }

    private static void write(Path root, Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path file = root.resolve(f.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
        }
    }

    /** The idem-maven-plugin's check goal, as the snippet of docs/attach.md declares it, plus any configuration. */
    static String checkPlugin(String configuration) {
        return """
                      <plugin>
                        <groupId>dev.idem</groupId><artifactId>idem-maven-plugin</artifactId><version>@idem.version@</version>
                        <executions><execution><goals><goal>check</goal></goals></execution></executions>
                        %s
                      </plugin>
                """.formatted(configuration);
    }

    /** The AspectJ Maven plugin weaving idem-aspect into the project, as the README's compile-time snippet does. */
    static String weavingPlugin() {
        return """
                      <plugin>
                        <groupId>dev.aspectj</groupId><artifactId>aspectj-maven-plugin</artifactId><version>@aspectj-plugin.version@</version>
                        <configuration>
                          <complianceLevel>17</complianceLevel><release>17</release><parameters>true</parameters>
                          <aspectLibraries><aspectLibrary><groupId>dev.idem</groupId><artifactId>idem-aspect</artifactId></aspectLibrary></aspectLibraries>
                        </configuration>
                        <executions><execution><goals><goal>compile</goal></goals></execution></executions>
                        <dependencies><dependency><groupId>org.aspectj</groupId><artifactId>aspectjtools</artifactId><version>@aspectj.version@</version></dependency></dependencies>
                      </plugin>
                """;
    }

    /**
     * Runs {@code mvn -B process-classes} in {@code project}, at most five minutes: the phase the check is bound
     * to, so a user's {@code mvn verify} fails exactly there, without the packaging this test does not need.
     */
    static Result run(Path project) throws Exception {
        return run(project, "process-classes");
    }

    /** Runs {@code mvn -B} with {@code goals} (and options) in {@code project}, at most five minutes. */
    static Result run(Path project, String... goals) throws Exception {
        List<String> command = new ArrayList<>(List.of(Paths.get(property("maven.home"), "bin", "mvn").toString(),
                "-B", "-ntp", "-s", SETTINGS.toString(), "-gs", ROOT.resolve("global-settings.xml").toString()));
        command.addAll(List.of(goals));
        ProcessBuilder builder = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true);
        // The outer build's MAVEN_OPTS may name its own local repository (-Dmaven.repo.local), which would win over
        // the child's settings and hand it the Idem jars installed there instead of this reactor's.
        builder.environment().remove("MAVEN_OPTS");
        Process process = builder.start();
        process.getOutputStream().close();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the sample build did not finish within 5 minutes: "
                    + output.get(30, TimeUnit.SECONDS));
        }
        return new Result(process.exitValue(), output.get(30, TimeUnit.SECONDS));
    }

    /** What a build printed, and how it ended. */
    record Result(int exitCode, String output) {
        boolean succeeded() {
            return exitCode == 0 && output.contains("BUILD SUCCESS");
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n" + output;
        }
    }

    private static void publish(String artifactId, String pom, Path jar) throws IOException {
        Path dir = FRESH.resolve("dev/idem/" + artifactId + "/" + VERSION);
        Files.createDirectories(dir);
        Files.copy(Paths.get(pom), dir.resolve(artifactId + "-" + VERSION + ".pom"));
        if (jar != null) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " is not a jar; run the integration tests with mvn verify");
            }
            Files.copy(jar, dir.resolve(artifactId + "-" + VERSION + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** A reactor jar's pom is its module's pom.xml; a jar from a repository has its pom beside it. */
    private static Path pomBeside(Path jar) {
        Path dir = jar.getParent();
        if (dir.getFileName().toString().equals("target")) {
            return dir.getParent().resolve("pom.xml");
        }
        return dir.resolve(jar.getFileName().toString().replaceAll("\\.jar$", ".pom"));
    }

    private static String fill(String text) {
        for (String key : List.of("idem.version", "aspectj.version", "compiler-plugin.version",
                "aspectj-plugin.version")) {
            text = text.replace("@" + key + "@", property(key));
        }
        return text;
    }

    static String property(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException("system property " + key + " is not set; the failsafe configuration"
                    + " in maven-plugin/pom.xml sets it");
        }
        return value;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
