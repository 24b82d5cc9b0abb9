package dev.idem.tests.release;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code ```java} block of the README and of every page of {@code docs/} compiles, as a reader pastes it into a
 * bare Java 17 project with Idem's modules on the class path (the convention for fragments is {@link DocSnippets}'s),
 * so the snippets cannot rot.
 */
class DocSnippetsTest {
    /** Surefire's class path for the tests: Idem's modules, their dependencies and JUnit, as a user's test has. */
    private static final String CLASS_PATH = System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path"));

    @TempDir
    Path out;

    @Test
    void everyJavaSnippetOfTheReadmeAndTheDocsCompiles() throws IOException {
        List<DocSnippets.Source> sources = new ArrayList<>();
        for (Path page : DocPages.all()) {
            DocSnippets.extract(DocPages.name(page), Files.readString(page)).stream()
                    .filter(s -> s.kind() != DocSnippets.Kind.NOT_COMPILED)
                    .map(DocSnippets.Snippet::source)
                    .forEach(sources::add);
        }
        assertTrue(sources.stream().anyMatch(s -> s.page().equals("README.md")), "the README has java snippets");
        assertTrue(sources.stream().anyMatch(s -> s.page().startsWith("docs/")), "the docs have java snippets");

        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(List.of(), errors, "snippets that do not compile:\n" + String.join("\n", errors));
    }

    @Test
    void aSnippetThatDoesNotCompileIsReportedWithItsPageAndLine() {
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

        List<DocSnippets.Source> sources = DocSnippets.extract("docs/page.md", markdown).stream()
                .map(DocSnippets.Snippet::source).collect(Collectors.toList());
        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("docs/page.md line 11 (/com/example/PageLine11.java:"), errors.get(0));
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

        List<DocSnippets.Source> sources = DocSnippets.extract("README.md", markdown).stream()
                .map(DocSnippets.Snippet::source).collect(Collectors.toList());
        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("unreported exception java.lang.Exception"), errors.get(0));
    }

    @Test
    void twoSnippetsDeclaringOneTypeAreRefused() {
        String markdown = "```java\nclass Twice {}\n```\n\n```java\nclass Twice {}\n```\n";

        List<DocSnippets.Source> sources = DocSnippets.extract("README.md", markdown).stream()
                .map(DocSnippets.Snippet::source).collect(Collectors.toList());
        List<String> errors = new SnippetCompiler(CLASS_PATH).compile(sources, out);

        assertEquals(List.of("README.md line 5: declares Twice.java, as the snippet at README.md line 1 does; give the"
                + " example types distinct names"), errors);
    }

    @Test
    void aPageMayUseTheTypesOfAnotherPageButNotDeclareThemAgain() {
        List<DocSnippets.Source> sources = new ArrayList<>();
        sources.addAll(sources("README.md", "```java\npackage com.example;\n\npublic class Shared {}\n```\n"));
        sources.addAll(sources("docs/uses.md", "<!-- snippet: statements -->\n```java\nnew Shared();\n```\n"));

        assertEquals(List.of(), new SnippetCompiler(CLASS_PATH).compile(sources, out));

        sources.addAll(sources("docs/again.md", "```java\npackage com.example;\n\npublic class Shared {}\n```\n"));
        assertEquals(List.of("docs/again.md line 1: declares com/example/Shared.java, as the snippet at README.md"
                + " line 1 does; give the example types distinct names"),
                new SnippetCompiler(CLASS_PATH).compile(sources, out));
    }

    @Test
    void statementsOfTwoPagesAtTheSameLineGetClassesOfTheirOwn() {
        String statements = "<!-- snippet: statements -->\n```java\nint x = 1;\n```\n";
        List<DocSnippets.Source> sources = new ArrayList<>(sources("README.md", statements));
        sources.addAll(sources("docs/jdbc-store.md", statements));

        assertEquals(List.of("com/example/ReadmeLine2.java", "com/example/JdbcStoreLine2.java"),
                sources.stream().map(DocSnippets.Source::path).collect(Collectors.toList()));
        assertEquals(List.of(), new SnippetCompiler(CLASS_PATH).compile(sources, out));
    }

    private static List<DocSnippets.Source> sources(String page, String markdown) {
        return DocSnippets.extract(page, markdown).stream().map(DocSnippets.Snippet::source)
                .collect(Collectors.toList());
    }

    @Test
    void aSketchIsLeftOutOnlyWithAReason() {
        List<DocSnippets.Snippet> sketch = DocSnippets.extract("docs/page.md",
                "<!-- snippet: not compiled (a sketch) -->\n```java\nArticle generate();\n```\n");
        assertEquals(DocSnippets.Kind.NOT_COMPILED, sketch.get(0).kind());

        IllegalArgumentException noReason = assertThrows(IllegalArgumentException.class, () -> DocSnippets.extract(
                "docs/page.md", "<!-- snippet: not compiled -->\n```java\nArticle generate();\n```\n"));
        assertTrue(noReason.getMessage().startsWith("docs/page.md line 1: unknown snippet marker"),
                noReason.getMessage());
    }
}
