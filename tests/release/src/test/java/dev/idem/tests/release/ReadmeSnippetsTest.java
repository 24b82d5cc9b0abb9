package dev.idem.tests.release;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code ```java} block of the README compiles, as a reader pastes it into a bare Java 17 project with Idem's
 * modules on the class path (the convention for fragments is {@link ReadmeSnippets}'s), so the snippets cannot rot.
 */
class ReadmeSnippetsTest {
    private static final Path README = Paths.get(System.getProperty("idem.root", "../.."), "README.md");
    /** Surefire's class path for the tests: Idem's modules, their dependencies and JUnit, as a user's test has. */
    private static final String CLASS_PATH = System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path"));

    @TempDir
    Path out;

    @Test
    void everyJavaSnippetOfTheReadmeCompiles() throws IOException {
        List<ReadmeSnippets.Snippet> snippets = ReadmeSnippets.extract(Files.readString(README));
        List<ReadmeSnippets.Source> sources = snippets.stream()
                .filter(s -> s.kind() != ReadmeSnippets.Kind.NOT_COMPILED)
                .map(ReadmeSnippets.Snippet::source)
                .collect(Collectors.toList());
        assertFalse(sources.isEmpty(), "the README has java snippets to check");

        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(List.of(), errors, "README snippets that do not compile:\n" + String.join("\n", errors));
    }

    @Test
    void aSnippetThatDoesNotCompileIsReportedWithItsReadmeLine() {
        String markdown = String.join("\n",
                "# A readme",
                "",
                "```java",
                "package com.example;",
                "",
                "public class Fine {",
                "}",
                "```",
                "",
                "<!-- snippet: statements -->",
                "```java",
                "import dev.idem.core.WeavingCheck;",
                "",
                "WeavingCheck.requireWoven(Fine.class);",
                "WeavingCheck.requireWoven(Missing.class);",
                "```",
                "");

        List<ReadmeSnippets.Source> sources = ReadmeSnippets.extract(markdown).stream()
                .map(ReadmeSnippets.Snippet::source).collect(Collectors.toList());
        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("README line 11 "), errors.get(0));
        assertTrue(errors.get(0).contains("Missing"), errors.get(0));
    }

    @Test
    void aCheckedExceptionLeftUnhandledInAWholeFileIsAnError() {
        String markdown = String.join("\n",
                "```java",
                "package com.example;",
                "",
                "import dev.idem.core.Idem;",
                "import dev.idem.core.IdempotencyPolicy;",
                "import dev.idem.core.IdempotentOperation;",
                "",
                "public class Daily {",
                "    private final IdempotentOperation<String> daily = Idem.engine().operation(",
                "            IdempotencyPolicy.custom().scope(\"d\").build(), String.class);",
                "",
                "    String today() {",
                "        return daily.call(() -> \"x\");",
                "    }",
                "}",
                "```",
                "");

        List<ReadmeSnippets.Source> sources = ReadmeSnippets.extract(markdown).stream()
                .map(ReadmeSnippets.Snippet::source).collect(Collectors.toList());
        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("unreported exception java.lang.Exception"), errors.get(0));
    }

    @Test
    void twoSnippetsDeclaringOneTypeAreRefused() {
        String markdown = "```java\nclass Twice {}\n```\n\n```java\nclass Twice {}\n```\n";

        List<ReadmeSnippets.Source> sources = ReadmeSnippets.extract(markdown).stream()
                .map(ReadmeSnippets.Snippet::source).collect(Collectors.toList());
        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(List.of("README line 5: declares Twice.java, as the snippet at line 1 does; give the example"
                + " types distinct names"), errors);
    }

    @Test
    void aSketchIsLeftOutOnlyWithAReason() {
        List<ReadmeSnippets.Snippet> sketch = ReadmeSnippets.extract(
                "<!-- snippet: not compiled (a sketch) -->\n```java\nArticle generate();\n```\n");
        assertEquals(ReadmeSnippets.Kind.NOT_COMPILED, sketch.get(0).kind());

        IllegalArgumentException noReason = assertThrows(IllegalArgumentException.class,
                () -> ReadmeSnippets.extract("<!-- snippet: not compiled -->\n```java\nArticle generate();\n```\n"));
        assertTrue(noReason.getMessage().contains("unknown snippet marker"), noReason.getMessage());
    }
}
