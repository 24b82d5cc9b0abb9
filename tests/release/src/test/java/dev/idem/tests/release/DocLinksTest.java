package dev.idem.tests.release;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link of the README and of the pages of {@code docs/} points to a file of the repository and, when it
 * names one, to a heading or anchor of that file, so moving a section cannot leave a reader at a dead link.
 */
class DocLinksTest {
    @TempDir
    Path dir;

    @Test
    void everyRelativeLinkOfTheReadmeAndTheDocsResolves() throws IOException {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path page : DocPages.all()) {
            checked += (int) DocLinks.links(Files.readString(page)).stream().filter(l -> !l.external()).count();
            problems.addAll(DocLinks.unresolved(page, DocPages.name(page)));
        }

        assertTrue(checked > 50, "the pages link to each other: " + checked + " relative links");
        assertEquals(List.of(), problems, "links that resolve to nothing:\n" + String.join("\n", problems));
    }

    @Test
    void aLinkToAMissingFileOrHeadingIsReportedWithItsLine() throws IOException {
        Files.createDirectories(dir.resolve("docs"));
        Files.writeString(dir.resolve("docs/attach.md"), "# Attach Idem\n\n## Load time\n\ntext\n");
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, String.join("\n",
                "# Idem",
                "",
                "[fine](docs/attach.md), [fine too](docs/attach.md#load-time), [here](#idem),",
                "[gone](docs/agent.md) and [moved](docs/attach.md#attach-at-launch), [nowhere](#nowhere),",
                "[the web](https://example.com/missing.md#x)",
                ""));

        assertEquals(List.of(
                "README.md line 4: (docs/agent.md) points to no file",
                "README.md line 4: (docs/attach.md#attach-at-launch) names no heading or anchor of attach.md",
                "README.md line 4: (#nowhere) names no heading or anchor of README.md"),
                DocLinks.unresolved(readme, "README.md"));
    }

    @Test
    void aLinkFromAPageOfDocsIsRelativeToThatPage() throws IOException {
        Files.createDirectories(dir.resolve("docs"));
        Files.writeString(dir.resolve("README.md"), "# Idem\n\n## Quick start\n");
        Path page = dir.resolve("docs/attach.md");
        Files.writeString(page, "[up](../README.md#quick-start) [not here](README.md)\n");

        assertEquals(List.of("docs/attach.md line 1: (README.md) points to no file"),
                DocLinks.unresolved(page, "docs/attach.md"));
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThemFromHeadingsOutsideCode() {
        Set<String> anchors = DocLinks.anchors(String.join("\n",
                "# What `@Idempotent` promises",
                "## The in-memory store's bound",
                "## 1. Which calls are \"the same call\"",
                "## Notes",
                "### Notes",
                "```sh",
                "# a shell comment, not a heading",
                "```",
                "<a id=\"old-rows\"></a>**Old rows.**",
                ""));

        assertEquals(List.of("what-idempotent-promises", "the-in-memory-stores-bound",
                "1-which-calls-are-the-same-call", "notes", "notes-1", "old-rows"), List.copyOf(anchors));
    }

    @Test
    void linksInCodeAreNotLinks() {
        List<String> targets = DocLinks.links(String.join("\n",
                "see [a](a.md) and `[b](b.md)`",
                "```java",
                "int[] x = y[0](z);",
                "```",
                "[d](d.md \"a title\") and ![e](e.png)",
                "")).stream().map(DocLinks.Link::target).collect(Collectors.toList());

        assertEquals(List.of("a.md", "d.md", "e.png"), targets);
    }
}
