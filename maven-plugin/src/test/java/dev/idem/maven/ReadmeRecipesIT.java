package dev.idem.maven;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The three Maven recipes as a new user meets them: the whole {@code pom.xml} of each, the quick start's
 * {@code OrderService} and {@code Main}, all copied from the text of the README (the quick start and its compile-time
 * recipe) and docs/attach.md (the load-time and agent recipes), built by a real Maven and run with the pages' own
 * {@code java} lines. A recipe that is a fragment, or that stops working, fails here.
 *
 * <p>The builds stop at {@code process-classes}, where the recipes copy their jars: that needs no plugin this reactor
 * has not resolved itself (see {@link SampleBuild}), and the {@code java} lines read only {@code target/}.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES) // three builds and four JVMs; minutes only on a machine shared and busy
class ReadmeRecipesIT {
    /** The README, then docs/attach.md: the pages the recipes are on, searched in this order. */
    private static final String PAGES = pages();
    private static final String ORDERS_RAN_ONCE = "created 1 time(s)";

    @BeforeAll
    static void repositories() throws Exception {
        SampleBuild.prepare();
    }

    @Test
    void theCompileTimeRecipeBuildsAndRunsTheQuickStart() throws Exception {
        Path project = project("readme-compile-time", "*Compile time* —");

        // The README's `mvn package dependency:copy-dependencies ...`, up to the phase the run needs.
        SampleBuild.Result build = SampleBuild.run(project, "process-classes",
                "org.apache.maven.plugins:maven-dependency-plugin:" + SampleBuild.property("dependency-plugin.version")
                        + ":copy-dependencies", "-DincludeScope=runtime", "-DoutputDirectory=target/lib");

        assertTrue(build.succeeded(), build.toString());
        Run run = java(project, javaLine("Then build, copy the runtime jars"));
        assertEquals(0, run.exitCode, run.toString());
        assertTrue(run.out.contains(ORDERS_RAN_ONCE), run.toString());
    }

    @Test
    void theLoadTimeRecipeBuildsAndRunsTheQuickStart() throws Exception {
        Path project = project("readme-load-time", "*Load time* —");

        SampleBuild.Result build = SampleBuild.run(project, "process-classes");

        assertTrue(build.succeeded(), build.toString());
        Run run = java(project, javaLine("*Load time* —"));
        assertEquals(0, run.exitCode, run.toString());
        assertTrue(run.out.contains(ORDERS_RAN_ONCE), run.toString());
    }

    @Test
    void theAgentRecipeBuildsAndRunsTheQuickStartAndItsStartupCheckNamesTheMethodWithoutTheAgent() throws Exception {
        Path project = project("readme-agent", "**With Maven.** At run time the engine");

        SampleBuild.Result build = SampleBuild.run(project, "process-classes");

        assertTrue(build.succeeded(), build.toString());
        List<String> line = javaLine("**With Maven.** At run time the engine");
        Run run = java(project, line);
        assertEquals(0, run.exitCode, run.toString());
        assertTrue(run.out.contains(ORDERS_RAN_ONCE), run.toString());

        List<String> withoutTheAgent = new ArrayList<>(line);
        assertTrue(withoutTheAgent.removeIf(a -> a.startsWith("-javaagent:")), "the line attaches the agent: " + line);
        Run unprotected = java(project, withoutTheAgent);
        assertEquals(1, unprotected.exitCode, unprotected.toString());
        assertFalse(unprotected.out.contains(ORDERS_RAN_ONCE), unprotected.toString());
        assertTrue(unprotected.err.contains("com.example.OrderService#create(String, Cart)"), unprotected.toString());
        assertTrue(unprotected.err.contains("-javaagent:idem-agent.jar"), unprotected.toString());
    }

    /** A project of the pom after {@code marker} and the quick start's classes. */
    private static Path project(String name, String marker) throws IOException {
        Path dir = SampleBuild.ROOT.resolve(name);
        Path sources = dir.resolve("src/main/java/com/example");
        Files.createDirectories(sources);
        Files.writeString(dir.resolve("pom.xml"), block(marker, "xml"), StandardCharsets.UTF_8);
        Files.writeString(sources.resolve("OrderService.java"), block("**1. Annotate**", "java"),
                StandardCharsets.UTF_8);
        Files.writeString(sources.resolve("Main.java"), block("Call it twice with the same request id", "java"),
                StandardCharsets.UTF_8);
        return dir;
    }

    /** The first {@code lang} block of the pages after {@code marker}, as a reader copies it. */
    private static String block(String marker, String lang) {
        int at = PAGES.indexOf(marker);
        assertTrue(at >= 0, "neither the README nor docs/attach.md has \"" + marker + "\"");
        int start = PAGES.indexOf("```" + lang + "\n", at);
        assertTrue(start >= 0, "no " + lang + " block after \"" + marker + "\"");
        start += lang.length() + 4;
        return PAGES.substring(start, PAGES.indexOf("```\n", start));
    }

    /** The {@code java ...} line of the first shell block after {@code marker}, split as a shell would. */
    private static List<String> javaLine(String marker) {
        String line = block(marker, "sh").lines().filter(l -> l.startsWith("java ")).findFirst()
                .orElseThrow(() -> new AssertionError("no java line after \"" + marker + "\""));
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        for (char c : line.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ' ' && !quoted) {
                if (word.length() > 0) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        words.add(word.toString());
        return words;
    }

    /** Runs the page's {@code java} line in {@code project}, with the JDK running this test. */
    private static Run java(Path project, List<String> line) throws Exception {
        List<String> command = new ArrayList<>(line);
        command.set(0, Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        Process process = new ProcessBuilder(command).directory(project.toFile()).start();
        process.getOutputStream().close();
        CompletableFuture<String> out = read(process, false);
        CompletableFuture<String> err = read(process, true);
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish within 2 minutes: " + err.getNow(""));
        }
        return new Run(process.exitValue(), out.get(30, TimeUnit.SECONDS), err.get(30, TimeUnit.SECONDS));
    }

    private static CompletableFuture<String> read(Process process, boolean errors) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String((errors ? process.getErrorStream() : process.getInputStream()).readAllBytes(),
                        StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private record Run(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private static String pages() {
        Path readme = Paths.get(SampleBuild.property("readme"));
        try {
            return Files.readString(readme) + "\n" + Files.readString(readme.resolveSibling("docs/attach.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
